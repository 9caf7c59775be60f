// rcmp6: sequences of reals; each must be within 1e-6 absolute or relative error.
#include "testlib.h"

static const double EPS = 1e-6;

int main(int argc, char *argv[]) {
    setName("compare sequences of doubles, max absolute or relative error = %g", EPS);
    registerTestlibCmd(argc, argv);
    int n = 0;
    double expected = 0;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        expected = ans.readDouble();
        double found = ouf.readDouble();
        if (!doubleCompare(expected, found, EPS))
            quitf(_wa, "%d%s numbers differ - expected: '%.7f', found: '%.7f', error = '%.7f'", n,
                  englishEnding(n).c_str(), expected, found, doubleDelta(expected, found));
    }
    if (!ans.seekEof())
        quitf(_wa, "Answer contains longer sequence [length = %d+], but output contains %d "
                   "elements", n + 1, n);
    if (!ouf.seekEof())
        quitf(_wa, "Output contains longer sequence [length = %d+], but answer contains %d "
                   "elements", n + 1, n);
    if (n == 1)
        quitf(_ok, "found '%.7f', expected '%.7f'", expected, expected);
    quitf(_ok, "%d numbers", n);
}
