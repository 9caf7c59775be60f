// ncmp: the answer and the output as sequences of 64-bit integers, compared one by one.
#include "testlib.h"

int main(int argc, char *argv[]) {
    setName("compare ordered sequences of signed int%d numbers", 64);
    registerTestlibCmd(argc, argv);
    int n = 0;
    std::string first;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        long long expected = ans.readLong();
        long long found = ouf.readLong();
        if (expected != found)
            quitf(_wa, "%d%s numbers differ - expected: '%s', found: '%s'", n,
                  englishEnding(n).c_str(), vtos(expected).c_str(), vtos(found).c_str());
        if (n <= 5)
            first += (n > 1 ? " " : "") + vtos(expected);
    }
    if (!ans.seekEof())
        quitf(_wa, "Answer contains longer sequence [length = %d+], but output contains %d "
                   "elements", n + 1, n);
    if (!ouf.seekEof())
        quitf(_wa, "Output contains longer sequence [length = %d+], but answer contains %d "
                   "elements", n + 1, n);
    if (n == 1)
        quitf(_ok, "1 number \"%s\"", first.c_str());
    quitf(_ok, "%d numbers \"%s%s\"", n, first.c_str(), n > 5 ? " ..." : "");
}
