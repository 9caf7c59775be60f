// lcmp: line by line, each line compared as a sequence of tokens (spacing ignored).
#include "testlib.h"

static std::vector<std::string> tokensOf(const std::string &line) {
    std::vector<std::string> tokens;
    std::istringstream in(line);
    std::string token;
    while (in >> token)
        tokens.push_back(token);
    return tokens;
}

int main(int argc, char *argv[]) {
    setName("compare files as sequences of lines");
    registerTestlibCmd(argc, argv);
    int n = 0;
    while (!ans.eof()) {
        std::string expected = ans.readLine();
        if (expected.empty() && ans.eof())
            break;
        std::string found = ouf.readLine();
        n++;
        if (tokensOf(expected) != tokensOf(found))
            quitf(_wa, "%d%s lines differ - expected: '%s', found: '%s'", n,
                  englishEnding(n).c_str(), compress(expected).c_str(), compress(found).c_str());
    }
    quitf(_ok, "%d lines", n);
}
