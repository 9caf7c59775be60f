// yesno: one YES or NO, in any letter case.
#include "testlib.h"

int main(int argc, char *argv[]) {
    setName("YES or NO (case insensitive)");
    registerTestlibCmd(argc, argv);
    std::string expected = upperCase(ans.readToken());
    if (expected != "YES" && expected != "NO")
        quitf(_fail, "YES or NO expected in answer, but %s found", compress(expected).c_str());
    std::string found = upperCase(ouf.readToken());
    if (found != "YES" && found != "NO")
        quitf(_pe, "YES or NO expected, but %s found", compress(found).c_str());
    if (expected != found)
        quitf(_wa, "expected %s, found %s", expected.c_str(), found.c_str());
    quitf(_ok, "answer is %s", expected.c_str());
}
