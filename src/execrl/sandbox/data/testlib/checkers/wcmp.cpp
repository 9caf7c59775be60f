// wcmp: the answer and the output as sequences of tokens, compared one by one.
#include "testlib.h"

int main(int argc, char *argv[]) {
    setName("compare sequences of tokens");
    registerTestlibCmd(argc, argv);
    int n = 0;
    std::string expected, found;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        ans.readWordTo(expected);
        ouf.readWordTo(found);
        if (expected != found)
            quitf(_wa, "%d%s words differ - expected: '%s', found: '%s'", n,
                  englishEnding(n).c_str(), compress(expected).c_str(), compress(found).c_str());
    }
    if (!ans.seekEof())
        quitf(_wa, "Answer contains longer sequence [length = %d+], but output contains %d "
                   "elements", n + 1, n);
    if (!ouf.seekEof())
        quitf(_wa, "Output contains longer sequence [length = %d+], but answer contains %d "
                   "elements", n + 1, n);
    if (n == 1)
        quitf(_ok, "single token: \"%s\"", compress(expected).c_str());
    quitf(_ok, "%d tokens", n);
}
