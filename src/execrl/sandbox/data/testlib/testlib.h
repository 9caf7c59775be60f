/*
 * testlib.h -- execrl's own implementation of the testlib API (the checker, validator,
 * generator and interactor library of Codeforces and Polygon).
 *
 * Written for execrl from the public interface that checkers, validators and generators
 * call; it shares no text with the original library. What it covers, how it differs
 * from the original and how to include it: docs/testlib.md in the execrl repository.
 *
 * Like the original, this is a header for exactly one translation unit: it defines its
 * global objects (inf, ouf, ans, rnd, ...) here.
 *
 * Builds with g++ -std=c++11 / gnu++17 / c++20, without warnings under -Wall -Wextra.
 *
 * Verdicts (stderr text prefix, exit code):
 *   _ok "ok " 0, _wa "wrong answer " 1, _pe "wrong output format " 2, _fail "FAIL " 3,
 *   _dirt "wrong output format " 2 (extra output after an accepted answer),
 *   _points "points " 7, _unexpected_eof reported as _pe unless ENABLE_UNEXPECTED_EOF
 *   is defined ("unexpected eof " 8), _pc(k) "partially correct (k) " PC_BASE_EXIT_CODE + k.
 */
#ifndef EXECRL_TESTLIB_H
#define EXECRL_TESTLIB_H
#ifndef _TESTLIB_H_
#define _TESTLIB_H_
#endif

#define TESTLIB_VERSION "execrl-1.0"
#define EXECRL_TESTLIB 1

#include <algorithm>
#include <bitset>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <sstream>
#include <stack>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__GNUC__) || defined(__clang__)
#define __TESTLIB_PRINTF(fmt_index, args_index) \
    __attribute__((format(printf, fmt_index, args_index)))
#else
#define __TESTLIB_PRINTF(fmt_index, args_index)
#endif

#if defined(__GLIBC__)
#define __TESTLIB_GETC(f) getc_unlocked(f)
#else
#define __TESTLIB_GETC(f) std::getc(f)
#endif

#ifndef OK_EXIT_CODE
#define OK_EXIT_CODE 0
#endif
#ifndef WA_EXIT_CODE
#define WA_EXIT_CODE 1
#endif
#ifndef PE_EXIT_CODE
#define PE_EXIT_CODE 2
#endif
#ifndef FAIL_EXIT_CODE
#define FAIL_EXIT_CODE 3
#endif
#ifndef DIRT_EXIT_CODE
#define DIRT_EXIT_CODE 4
#endif
#ifndef POINTS_EXIT_CODE
#define POINTS_EXIT_CODE 7
#endif
#ifndef UNEXPECTED_EOF_EXIT_CODE
#define UNEXPECTED_EOF_EXIT_CODE 8
#endif
#ifndef PC_BASE_EXIT_CODE
#define PC_BASE_EXIT_CODE 16
#endif

const char LF = '\n';
const char CR = '\r';
const char SPACE = ' ';
const char TAB = '\t';
const int EOFC = EOF;

enum TResult {
    _ok = 0,
    _wa = 1,
    _pe = 2,
    _fail = 3,
    _dirt = 4,
    _points = 5,
    _unexpected_eof = 8,
    _partially = 16
};

#define _pc(exitCode) (TResult(_partially + (exitCode)))

enum TTestlibMode { _unknown, _checker, _validator, _generator, _interactor, _scorer };

enum TMode { _input, _output, _answer };

/* ------------------------------------------------------------------ library state */

TTestlibMode testlibMode = _unknown;
std::string checkerName = "untitled checker";
std::string resultName;
bool appesMode = false;
int __testlib_quitCount = 0;
int __testlib_readEofCount = 0;
std::string __testlib_pointsText;

/* ------------------------------------------------------------------ strings */

inline std::string __testlib_vformat(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    char small[1024];
    int n = std::vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0)
        return std::string();
    if (n < static_cast<int>(sizeof small))
        return std::string(small, static_cast<size_t>(n));
    std::vector<char> big(static_cast<size_t>(n) + 1);
    std::vsnprintf(&big[0], big.size(), fmt, ap);
    return std::string(&big[0], static_cast<size_t>(n));
}

inline std::string __testlib_format_c(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string result = __testlib_vformat(fmt, ap);
    va_end(ap);
    return result;
}

/* A template (not a C variadic function) so that it wins over std::format in C++20 code that
 * says `using namespace std;`: its first parameter matches a string literal exactly. */
template <typename... Args>
std::string format(const char *fmt, Args... args) {
    return __testlib_format_c(fmt, args...);
}

template <typename... Args>
std::string format(const std::string &fmt, Args... args) {
    return __testlib_format_c(fmt.c_str(), args...);
}

template <typename T>
std::string vtos(const T &t) {
    std::ostringstream ss;
    ss << t;
    return ss.str();
}

inline std::string vtos(double t) {
    std::ostringstream ss;
    ss << std::setprecision(15) << t;
    return ss.str();
}

inline std::string vtos(long double t) {
    std::ostringstream ss;
    ss << std::setprecision(18) << t;
    return ss.str();
}

inline std::string vtos(float t) { return vtos(static_cast<double>(t)); }

template <typename T>
std::string toString(const T &t) {
    return vtos(t);
}

inline std::string englishEnding(int x) {
    x %= 100;
    if (x < 0)
        x = -x;
    if (x / 10 == 1)
        return "th";
    if (x % 10 == 1)
        return "st";
    if (x % 10 == 2)
        return "nd";
    if (x % 10 == 3)
        return "rd";
    return "th";
}

inline std::string upperCase(std::string s) {
    for (size_t i = 0; i < s.size(); i++)
        s[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
    return s;
}

inline std::string lowerCase(std::string s) {
    for (size_t i = 0; i < s.size(); i++)
        s[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    return s;
}

inline bool isEoln(char c) { return c == LF || c == CR; }

inline bool isBlanks(char c) { return c == LF || c == CR || c == SPACE || c == TAB; }

inline std::string trim(const std::string &s) {
    size_t begin = 0;
    size_t end = s.size();
    while (begin < end && isBlanks(s[begin]))
        begin++;
    while (end > begin && isBlanks(s[end - 1]))
        end--;
    return s.substr(begin, end - begin);
}

/* A long string cut to its head and tail, for messages. */
inline std::string compress(const std::string &s) {
    if (s.size() <= 64)
        return s;
    return s.substr(0, 30) + "..." + s.substr(s.size() - 31);
}

inline std::string __testlib_part(const std::string &s) { return compress(s); }

/* |expected - result| and, when expected is not 0, the relative error; the smaller. */
inline double doubleDelta(double expected, double result) {
    double absolute = std::fabs(result - expected);
    if (expected != 0.0) {
        double relative = absolute / std::fabs(expected);
        if (relative < absolute)
            return relative;
    }
    return absolute;
}

/* Accepts `result` when its absolute or relative error against `expected` is at most
 * `maxError` (plus 1e-15 for rounding). NaN matches NaN; an infinity matches the same one. */
inline bool doubleCompare(double expected, double result, double maxError) {
    if (std::isnan(expected))
        return std::isnan(result);
    if (std::isinf(expected))
        return std::isinf(result) && ((expected > 0) == (result > 0));
    if (std::isnan(result) || std::isinf(result))
        return false;
    const double slack = 1e-15;
    if (std::fabs(result - expected) <= maxError + slack)
        return true;
    double bound = std::fabs(expected) * maxError;
    return std::fabs(result - expected) <= bound + slack;
}

/* ------------------------------------------------------------------ quitting (declared) */

[[noreturn]] inline void quit(TResult result, const std::string &msg);
[[noreturn]] inline void quit(TResult result, const char *msg);
[[noreturn]] inline void quits(TResult result, const std::string &msg);
[[noreturn]] inline void quitf(TResult result, const char *fmt, ...) __TESTLIB_PRINTF(2, 3);
[[noreturn]] inline void __testlib_fail(const std::string &msg);

inline void quitif(bool condition, TResult result, const char *fmt, ...) __TESTLIB_PRINTF(3, 4);

inline void quitif(bool condition, TResult result, const char *fmt, ...) {
    if (!condition)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quit(result, msg);
}

inline void __testlib_ensure(bool condition, const std::string &msg) {
    if (!condition)
        quit(_fail, msg);
}

#define ensure(cond) __testlib_ensure((cond), "Condition failed: \"" #cond "\"")

inline void ensuref(bool condition, const char *fmt, ...) __TESTLIB_PRINTF(2, 3);

inline void ensuref(bool condition, const char *fmt, ...) {
    if (condition)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quit(_fail, msg);
}

inline void setName(const char *fmt, ...) __TESTLIB_PRINTF(1, 2);

inline void setName(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    checkerName = __testlib_vformat(fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ random_t */

class pattern;

/* Deterministic pseudo-random numbers (splitmix64); the sequence is execrl's own and
 * differs from the original library's for the same seed. */
class random_t {
  public:
    random_t() : state_(0x9E3779B97F4A7C15ULL) {}

    void setSeed(long long seed) {
        state_ = static_cast<unsigned long long>(seed) * 0xD1B54A32D192ED03ULL;
        state_ += 0x2545F4914F6CDD1DULL;
    }

    /* The seed a generator gets from its command line: a hash of every argument. */
    void setSeed(int argc, char *argv[]) {
        unsigned long long h = 0xCBF29CE484222325ULL;
        for (int i = 1; i < argc; i++) {
            for (const char *p = argv[i]; *p; p++) {
                h ^= static_cast<unsigned char>(*p);
                h *= 0x100000001B3ULL;
            }
            h ^= 0xFFULL;
            h *= 0x100000001B3ULL;
        }
        setSeed(static_cast<long long>(h));
    }

    unsigned long long nextBits() {
        unsigned long long z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /* A double in [0, 1). */
    double next() { return static_cast<double>(nextBits() >> 11) * (1.0 / 9007199254740992.0); }

    /* An integer in [0, n) or a real in [0, n). */
    template <typename T>
    typename std::enable_if<std::is_integral<T>::value, T>::type next(T n) {
        if (!(n > 0))
            __testlib_fail("random_t::next(n): n must be positive");
        return static_cast<T>(below(static_cast<unsigned long long>(n)));
    }

    template <typename T>
    typename std::enable_if<std::is_floating_point<T>::value, T>::type next(T n) {
        if (!(n > 0))
            __testlib_fail("random_t::next(n): n must be positive");
        return static_cast<T>(next() * n);
    }

    /* An integer in [from, to] or a real in [from, to). */
    template <typename A, typename B>
    typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value,
                            typename std::common_type<A, B>::type>::type
    next(A from, B to) {
        typedef typename std::common_type<A, B>::type T;
        return range<T>(static_cast<T>(from), static_cast<T>(to), std::is_integral<T>());
    }

    /* A string matching a pattern ("[a-z]{1,10}"); the printf form formats it first. */
    std::string next(const std::string &ptrn);
    std::string next(const char *fmt, ...);

    /* Weighted: type > 0 is the largest of type + 1 draws, type < 0 the smallest of
     * -type + 1 draws, 0 a plain draw. */
    template <typename T>
    typename std::enable_if<std::is_arithmetic<T>::value, T>::type wnext(T n, int type) {
        if (!(n > 0))
            __testlib_fail("random_t::wnext(n, type): n must be positive");
        if (type == 0)
            return next(n);
        int draws = type > 0 ? type + 1 : -type + 1;
        if (draws <= 25) {
            T best = next(n);
            for (int i = 1; i < draws; i++) {
                T v = next(n);
                if (type > 0 ? v > best : v < best)
                    best = v;
            }
            return best;
        }
        double p = std::pow(next(), 1.0 / draws);
        if (type < 0)
            p = 1.0 - p;
        return clampBelow<T>(n, p, std::is_integral<T>());
    }

    template <typename A, typename B>
    typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value,
                            typename std::common_type<A, B>::type>::type
    wnext(A from, B to, int type) {
        typedef typename std::common_type<A, B>::type T;
        if (static_cast<T>(from) > static_cast<T>(to))
            __testlib_fail("random_t::wnext(from, to, type): from can't be greater than to");
        return wrange<T>(static_cast<T>(from), static_cast<T>(to), type,
                         std::is_integral<T>());
    }

    template <typename C>
    typename C::value_type any(const C &c) {
        if (c.empty())
            __testlib_fail("random_t::any(c): c can't be empty");
        typename C::const_iterator it = c.begin();
        std::advance(it, next(static_cast<long long>(c.size())));
        return *it;
    }

    template <typename It>
    typename std::iterator_traits<It>::value_type any(const It &begin, const It &end) {
        long long size = static_cast<long long>(std::distance(begin, end));
        if (size <= 0)
            __testlib_fail("random_t::any(begin, end): range can't be empty");
        It it = begin;
        std::advance(it, next(size));
        return *it;
    }

    template <typename C>
    typename C::value_type wany(const C &c, int type) {
        if (c.empty())
            __testlib_fail("random_t::wany(c, type): c can't be empty");
        typename C::const_iterator it = c.begin();
        std::advance(it, wnext(static_cast<long long>(c.size()), type));
        return *it;
    }

    template <typename It>
    void shuffle(It first, It last) {
        if (first == last)
            return;
        for (It i = first + 1; i != last; ++i)
            std::iter_swap(i, first + next(static_cast<long long>(i - first + 1)));
    }

    /* A random permutation of first, first + 1, ..., first + size - 1. */
    template <typename T, typename E>
    std::vector<E> perm(T size, E first) {
        if (size < 0)
            __testlib_fail("random_t::perm(size, first): size must not be negative");
        std::vector<E> p(static_cast<size_t>(size));
        for (size_t i = 0; i < p.size(); i++)
            p[i] = static_cast<E>(first + static_cast<E>(i));
        shuffle(p.begin(), p.end());
        return p;
    }

    template <typename T>
    std::vector<T> perm(T size) {
        return perm(size, T(0));
    }

    /* `size` distinct values from [from, to], in random order. */
    template <typename T>
    std::vector<T> distinct(int size, T from, T to) {
        if (size < 0)
            __testlib_fail("random_t::distinct(size, from, to): size must not be negative");
        if (from > to)
            __testlib_fail("random_t::distinct(size, from, to): from can't be greater than to");
        unsigned long long count =
            static_cast<unsigned long long>(to) - static_cast<unsigned long long>(from) + 1;
        if (count != 0 && static_cast<unsigned long long>(size) > count)
            __testlib_fail("random_t::distinct(size, from, to): too few values in the range");
        std::vector<T> result;
        result.reserve(static_cast<size_t>(size));
        if (count != 0 && count <= 2 * static_cast<unsigned long long>(size) + 16) {
            std::vector<T> all(static_cast<size_t>(count));
            for (size_t i = 0; i < all.size(); i++)
                all[i] = static_cast<T>(from + static_cast<T>(i));
            for (int i = 0; i < size; i++) {
                size_t j = static_cast<size_t>(i) + static_cast<size_t>(below(count - i));
                std::swap(all[static_cast<size_t>(i)], all[j]);
                result.push_back(all[static_cast<size_t>(i)]);
            }
            return result;
        }
        std::set<T> seen;
        while (static_cast<int>(result.size()) < size) {
            T v = next(from, to);
            if (seen.insert(v).second)
                result.push_back(v);
        }
        return result;
    }

    template <typename T>
    std::vector<T> distinct(int size, T upper) {
        if (!(upper > 0))
            __testlib_fail("random_t::distinct(size, upper): upper must be positive");
        return distinct(size, T(0), static_cast<T>(upper - 1));
    }

    /* `size` values, each at least `minPart`, summing to `sum`. */
    template <typename T>
    std::vector<T> partition(int size, T sum, T minPart) {
        if (size < 0)
            __testlib_fail("random_t::partition(size, sum, minPart): size must not be negative");
        if (size == 0) {
            if (sum != 0)
                __testlib_fail("random_t::partition(size, sum, minPart): size is 0, sum is not");
            return std::vector<T>();
        }
        if (sum < static_cast<T>(size) * minPart)
            __testlib_fail("random_t::partition(size, sum, minPart): sum is too small");
        T rest = sum - static_cast<T>(size) * minPart;
        std::vector<T> parts(static_cast<size_t>(size), minPart);
        if (size == 1) {
            parts[0] = sum;
            return parts;
        }
        std::vector<T> cuts = distinct(size - 1, T(0), static_cast<T>(rest + size - 2));
        std::sort(cuts.begin(), cuts.end());
        T previous = static_cast<T>(-1);
        for (int i = 0; i < size - 1; i++) {
            parts[static_cast<size_t>(i)] += cuts[static_cast<size_t>(i)] - previous - 1;
            previous = cuts[static_cast<size_t>(i)];
        }
        parts[static_cast<size_t>(size - 1)] += static_cast<T>(rest + size - 2) - previous;
        return parts;
    }

    template <typename T>
    std::vector<T> partition(int size, T sum) {
        return partition(size, sum, T(1));
    }

  private:
    unsigned long long state_;

    /* Uniform in [0, n) without modulo bias; n > 0. */
    unsigned long long below(unsigned long long n) {
        unsigned long long limit = ULLONG_MAX - ULLONG_MAX % n;
        unsigned long long x;
        do
            x = nextBits();
        while (x >= limit);
        return x % n;
    }

    template <typename T>
    T range(T from, T to, std::true_type) {
        if (from > to)
            __testlib_fail("random_t::next(from, to): from can't be greater than to");
        unsigned long long span =
            static_cast<unsigned long long>(to) - static_cast<unsigned long long>(from);
        unsigned long long offset = span == ULLONG_MAX ? nextBits() : below(span + 1);
        return static_cast<T>(static_cast<unsigned long long>(from) + offset);
    }

    template <typename T>
    T range(T from, T to, std::false_type) {
        if (from > to)
            __testlib_fail("random_t::next(from, to): from can't be greater than to");
        return static_cast<T>(from + (to - from) * next());
    }

    template <typename T>
    T clampBelow(T n, double p, std::true_type) {
        long double v = static_cast<long double>(n) * p;
        unsigned long long r = static_cast<unsigned long long>(v);
        if (r >= static_cast<unsigned long long>(n))
            r = static_cast<unsigned long long>(n) - 1;
        return static_cast<T>(r);
    }

    template <typename T>
    T clampBelow(T n, double p, std::false_type) {
        return static_cast<T>(n * p);
    }

    template <typename T>
    T wrange(T from, T to, int type, std::true_type) {
        unsigned long long span =
            static_cast<unsigned long long>(to) - static_cast<unsigned long long>(from);
        unsigned long long offset =
            span == ULLONG_MAX ? nextBits() : wnext<unsigned long long>(span + 1, type);
        return static_cast<T>(static_cast<unsigned long long>(from) + offset);
    }

    template <typename T>
    T wrange(T from, T to, int type, std::false_type) {
        if (from == to)
            return from;
        return static_cast<T>(from + wnext(to - from, type));
    }
};

random_t rnd;

template <typename It>
void shuffle(It first, It last) {
    rnd.shuffle(first, last);
}

/* ------------------------------------------------------------------ pattern */

/* Testlib's small pattern language: literals, [a-z0-9_] classes (ranges, ^ to negate),
 * \ escapes, (groups) with | alternatives, and the counts {n}, {n,m}, {n,}, ?, * and +. */
class pattern {
  public:
    pattern() { parseAll(""); }
    pattern(const std::string &s) { parseAll(s); }
    pattern(const char *s) { parseAll(s); }

    const std::string &src() const { return src_; }

    bool matches(const std::string &s) const {
        MatchContext ctx;
        ctx.s = &s;
        ctx.runs.resize(nodes_.size());
        ctx.stamps.resize(nodes_.size());
        ctx.epoch = 0;
        Positions start(1, 0);
        Positions end;
        step(root_, start, end, ctx);
        return !end.empty() && end.back() == static_cast<int>(s.size());
    }

    std::string next(random_t &random) const {
        std::string out;
        generate(root_, random, out);
        return out;
    }

  private:
    struct Node {
        bool isClass;
        bool negated;
        std::bitset<256> chars;
        std::vector<char> choices;
        std::vector<std::vector<int> > alternatives;
        int minCount;
        int maxCount;
        Node() : isClass(false), negated(false), minCount(1), maxCount(1) {}
    };

    enum { kUnbounded = INT_MAX, kGeneratedExtra = 20 };

    std::string src_;
    std::vector<Node> nodes_;
    int root_;

    void fail(const std::string &why) const {
        __testlib_fail("pattern \"" + src_ + "\": " + why);
    }

    void parseAll(const std::string &s) {
        src_ = s;
        nodes_.clear();
        size_t i = 0;
        root_ = parseAlternatives(i);
        if (i != src_.size())
            fail("unexpected ')' at position " + vtos(i));
    }

    int newNode() {
        nodes_.push_back(Node());
        return static_cast<int>(nodes_.size()) - 1;
    }

    int parseAlternatives(size_t &i) {
        int group = newNode();
        std::vector<std::vector<int> > alternatives(1);
        while (i < src_.size() && src_[i] != ')') {
            if (src_[i] == '|') {
                alternatives.push_back(std::vector<int>());
                i++;
                continue;
            }
            int atom = parseAtom(i);
            parseCount(i, atom);
            alternatives.back().push_back(atom);
        }
        nodes_[static_cast<size_t>(group)].alternatives = alternatives;
        return group;
    }

    int parseAtom(size_t &i) {
        char c = src_[i];
        if (c == '(') {
            i++;
            int group = parseAlternatives(i);
            if (i >= src_.size())
                fail("missing ')'");
            i++;
            return group;
        }
        if (c == '[')
            return parseClass(i);
        if (c == '{' || c == '}' || c == '*' || c == '+' || c == '?' || c == ']')
            fail(std::string("unexpected '") + c + "' at position " + vtos(i));
        if (c == '\\') {
            if (i + 1 >= src_.size())
                fail("dangling '\\' at the end");
            i++;
            c = src_[i];
        }
        i++;
        int atom = newNode();
        Node &node = nodes_[static_cast<size_t>(atom)];
        node.isClass = true;
        node.chars.set(static_cast<unsigned char>(c));
        node.choices.push_back(c);
        return atom;
    }

    int parseClass(size_t &i) {
        i++;  // '['
        int atom = newNode();
        bool negated = false;
        if (i < src_.size() && src_[i] == '^') {
            negated = true;
            i++;
        }
        std::bitset<256> chars;
        bool closed = false;
        while (i < src_.size()) {
            char c = src_[i];
            if (c == ']') {
                closed = true;
                i++;
                break;
            }
            if (c == '\\') {
                if (i + 1 >= src_.size())
                    fail("dangling '\\' in a class");
                i++;
                c = src_[i];
            }
            i++;
            if (i + 1 < src_.size() && src_[i] == '-' && src_[i + 1] != ']') {
                char last = src_[i + 1];
                if (last == '\\' && i + 2 < src_.size()) {
                    last = src_[i + 2];
                    i++;
                }
                i += 2;
                if (static_cast<unsigned char>(last) < static_cast<unsigned char>(c))
                    fail(std::string("empty range ") + c + "-" + last);
                for (int x = static_cast<unsigned char>(c); x <= static_cast<unsigned char>(last);
                     x++)
                    chars.set(static_cast<size_t>(x));
            } else {
                chars.set(static_cast<unsigned char>(c));
            }
        }
        if (!closed)
            fail("missing ']'");
        Node &node = nodes_[static_cast<size_t>(atom)];
        node.isClass = true;
        node.negated = negated;
        node.chars = negated ? ~chars : chars;
        for (int x = 0; x < 256; x++) {
            bool printable = x >= 32 && x <= 126;
            if (node.chars.test(static_cast<size_t>(x)) && (!negated || printable))
                node.choices.push_back(static_cast<char>(x));
        }
        if (node.choices.empty())
            fail("a class that matches nothing");
        return atom;
    }

    int readNumber(size_t &i) {
        if (i >= src_.size() || !std::isdigit(static_cast<unsigned char>(src_[i])))
            fail("a number expected at position " + vtos(i));
        long long v = 0;
        while (i < src_.size() && std::isdigit(static_cast<unsigned char>(src_[i]))) {
            v = v * 10 + (src_[i] - '0');
            if (v > 100000000)
                fail("a count too large");
            i++;
        }
        return static_cast<int>(v);
    }

    void parseCount(size_t &i, int atom) {
        if (i >= src_.size())
            return;
        Node &node = nodes_[static_cast<size_t>(atom)];
        char c = src_[i];
        if (c == '?' || c == '*' || c == '+') {
            node.minCount = c == '+' ? 1 : 0;
            node.maxCount = c == '?' ? 1 : kUnbounded;
            i++;
            return;
        }
        if (c != '{')
            return;
        i++;
        int low = readNumber(i);
        int high = low;
        if (i < src_.size() && src_[i] == ',') {
            i++;
            high = i < src_.size() && src_[i] == '}' ? static_cast<int>(kUnbounded) : readNumber(i);
        }
        if (i >= src_.size() || src_[i] != '}')
            fail("missing '}'");
        i++;
        if (high < low)
            fail("a count range {" + vtos(low) + "," + vtos(high) + "} that is empty");
        nodes_[static_cast<size_t>(atom)].minCount = low;
        nodes_[static_cast<size_t>(atom)].maxCount = high;
    }

    /* Matching works on sets of positions (sorted, without repeats): the positions where a
     * node's match can end, given the positions where it can start. A counted character class
     * is one pass over the starts; a counted group expands each position once after its
     * minimum count, so both stay near linear in the string's length for usual patterns. */
    typedef std::vector<int> Positions;

    struct MatchContext {
        const std::string *s;
        std::vector<std::vector<int> > runs;
        std::vector<std::vector<int> > stamps;
        int epoch;
    };

    const std::vector<int> &runOf(int index, MatchContext &ctx) const {
        std::vector<int> &run = ctx.runs[static_cast<size_t>(index)];
        if (!run.empty())
            return run;
        const std::string &s = *ctx.s;
        const Node &node = nodes_[static_cast<size_t>(index)];
        run.assign(s.size() + 1, 0);
        for (size_t p = s.size(); p-- > 0;)
            run[p] = node.chars.test(static_cast<unsigned char>(s[p])) ? run[p + 1] + 1 : 0;
        return run;
    }

    void step(int index, const Positions &in, Positions &out, MatchContext &ctx) const {
        const Node &node = nodes_[static_cast<size_t>(index)];
        out.clear();
        if (node.isClass) {
            const std::vector<int> &run = runOf(index, ctx);
            long long covered = -1;
            for (size_t k = 0; k < in.size(); k++) {
                int p = in[k];
                if (run[static_cast<size_t>(p)] < node.minCount)
                    continue;
                long long low = static_cast<long long>(p) + node.minCount;
                int longest = std::min(node.maxCount, run[static_cast<size_t>(p)]);
                long long high = static_cast<long long>(p) + longest;
                for (long long q = std::max(low, covered + 1); q <= high; q++)
                    out.push_back(static_cast<int>(q));
                covered = std::max(covered, high);
            }
            return;
        }
        if (node.minCount == 1 && node.maxCount == 1) {
            once(node, in, out, ctx);
            return;
        }
        /* exactly minCount repetitions first, level by level */
        Positions current = in;
        Positions following;
        for (int k = 0; k < node.minCount && !current.empty(); k++) {
            once(node, current, following, ctx);
            if (following == current)
                break;
            current.swap(following);
        }
        if (current.empty())
            return;
        /* then up to maxCount more, each position expanded the first time it is reached */
        std::vector<int> &stamp = ctx.stamps[static_cast<size_t>(index)];
        if (stamp.empty())
            stamp.assign(ctx.s->size() + 1, 0);
        int epoch = ++ctx.epoch;
        for (size_t k = 0; k < current.size(); k++)
            stamp[static_cast<size_t>(current[k])] = epoch;
        out = current;
        Positions frontier = current;
        for (long long level = node.minCount; level < node.maxCount && !frontier.empty();
             level++) {
            once(node, frontier, following, ctx);
            frontier.clear();
            for (size_t k = 0; k < following.size(); k++) {
                int p = following[k];
                if (stamp[static_cast<size_t>(p)] != epoch) {
                    stamp[static_cast<size_t>(p)] = epoch;
                    frontier.push_back(p);
                    out.push_back(p);
                }
            }
        }
        std::sort(out.begin(), out.end());
    }

    void once(const Node &group, const Positions &in, Positions &out, MatchContext &ctx) const {
        out.clear();
        Positions a;
        Positions b;
        Positions merged;
        for (size_t alt = 0; alt < group.alternatives.size(); alt++) {
            a = in;
            const std::vector<int> &sequence = group.alternatives[alt];
            for (size_t j = 0; j < sequence.size() && !a.empty(); j++) {
                step(sequence[j], a, b, ctx);
                a.swap(b);
            }
            merged.clear();
            std::set_union(out.begin(), out.end(), a.begin(), a.end(),
                           std::back_inserter(merged));
            out.swap(merged);
        }
    }

    void generate(int index, random_t &random, std::string &out) const {
        const Node &node = nodes_[static_cast<size_t>(index)];
        int high = node.maxCount == kUnbounded ? node.minCount + kGeneratedExtra : node.maxCount;
        int count = random.next(node.minCount, high);
        for (int k = 0; k < count; k++) {
            if (node.isClass) {
                out += node.choices[static_cast<size_t>(
                    random.next(static_cast<int>(node.choices.size())))];
                continue;
            }
            const std::vector<int> &sequence = node.alternatives[static_cast<size_t>(
                random.next(static_cast<int>(node.alternatives.size())))];
            for (size_t j = 0; j < sequence.size(); j++)
                generate(sequence[j], random, out);
        }
    }
};

inline std::string random_t::next(const std::string &ptrn) { return pattern(ptrn).next(*this); }

inline std::string random_t::next(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string ptrn = __testlib_vformat(fmt, ap);
    va_end(ap);
    return pattern(ptrn).next(*this);
}

/* ------------------------------------------------------------------ InStream */

class InStream {
  public:
    std::string name;
    TMode mode;
    bool strict;
    bool opened;
    int lastLine;

    InStream()
        : name("stdin"), mode(_input), strict(false), opened(false), lastLine(-1), file_(NULL),
          ownsFile_(false), pos_(0), line_(1) {}

    /* A stream over `content` that reports errors like `base` does. */
    InStream(const InStream &base, const std::string &content)
        : name(base.name), mode(base.mode), strict(base.strict), opened(true), lastLine(-1),
          file_(NULL), ownsFile_(false), data_(content), pos_(0), line_(1) {}

    InStream(const InStream &) = delete;
    InStream &operator=(const InStream &) = delete;

    ~InStream() { close(); }

    void init(const std::string &fileName, TMode streamMode);
    void init(std::FILE *f, TMode streamMode);
    void close();

    /* characters */
    int curChar() {
        if (back_.empty())
            back_.push_back(raw());
        return back_.back();
    }

    int nextChar() {
        int c = curChar();
        if (c != EOFC) {
            back_.pop_back();
            if (c == LF)
                line_++;
        }
        return c;
    }

    void skipChar() { nextChar(); }

    void unreadChar(int c) {
        if (c == EOFC)
            return;
        if (!back_.empty() && back_.back() == EOFC)
            back_.pop_back();
        back_.push_back(c);
        if (c == LF)
            line_--;
    }

    bool eof() { return !opened || curChar() == EOFC; }

    bool seekEof() {
        skipBlanks();
        return eof();
    }

    void skipBlanks() {
        while (opened) {
            int c = curChar();
            if (c == EOFC || !isBlanks(static_cast<char>(c)))
                return;
            nextChar();
        }
    }

    /* True at an end of line, which it consumes ("\n", or "\r\n" outside strict mode);
     * outside strict mode the end of the file counts too. */
    bool eoln() {
        if (!opened)
            return true;
        int c = curChar();
        if (c == LF) {
            nextChar();
            return true;
        }
        if (strict)
            return false;
        if (c == EOFC)
            return true;
        if (c == CR) {
            nextChar();
            if (curChar() == LF) {
                nextChar();
                return true;
            }
            unreadChar(CR);
        }
        return false;
    }

    bool seekEoln() {
        while (opened && (curChar() == SPACE || curChar() == TAB))
            nextChar();
        return eoln();
    }

    void nextLine() {
        while (opened && curChar() != EOFC && curChar() != LF)
            nextChar();
        nextChar();
    }

    void readEoln() {
        lastLine = line_;
        if (!eoln())
            quit(_pe, "Expected EOLN");
    }

    void readEof() {
        lastLine = line_;
        if (!strict)
            skipBlanks();
        if (!eof())
            quit(_pe, "Expected EOF");
        __testlib_readEofCount++;
    }

    char readChar() {
        lastLine = line_;
        int c = nextChar();
        if (c == EOFC)
            quit(_unexpected_eof, "Unexpected end of file - char expected");
        return static_cast<char>(c);
    }

    char readChar(char expected) {
        lastLine = line_;
        int c = nextChar();
        if (c == EOFC)
            quit(_unexpected_eof, "Unexpected end of file - " + printable(expected) + " expected");
        if (static_cast<char>(c) != expected)
            quit(_pe, "Unexpected character " + printable(static_cast<char>(c)) + ", but " +
                          printable(expected) + " expected");
        return expected;
    }

    void readSpace() { readChar(SPACE); }

    /* tokens */
    void readWordTo(std::string &result) { readTokenFor("token", result); }
    void readTokenTo(std::string &result) { readWordTo(result); }

    std::string readWord() {
        std::string result;
        readWordTo(result);
        return result;
    }

    std::string readToken() { return readWord(); }

    std::string readWord(const pattern &p, const std::string &variableName = "") {
        std::string result = readWord();
        checkPattern("Token", result, p, variableName);
        return result;
    }

    std::string readWord(const std::string &ptrn, const std::string &variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    std::string readWord(const char *ptrn, const std::string &variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    std::string readToken(const pattern &p, const std::string &variableName = "") {
        return readWord(p, variableName);
    }

    std::string readToken(const std::string &ptrn, const std::string &variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    std::string readToken(const char *ptrn, const std::string &variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    void readWordTo(std::string &result, const pattern &p, const std::string &variableName = "") {
        readWordTo(result);
        checkPattern("Token", result, p, variableName);
    }

    void readTokenTo(std::string &result, const pattern &p, const std::string &variableName = "") {
        readWordTo(result, p, variableName);
    }

    /* numbers */
    long long readLong() {
        std::string token;
        readTokenFor("int64", token);
        long long value = 0;
        if (!parseSigned(token, value))
            quit(_pe, "Expected int64, but \"" + compress(token) + "\" found");
        return value;
    }

    long long readLong(long long minValue, long long maxValue,
                       const std::string &variableName = "") {
        long long value = readLong();
        checkRange("Integer", value, minValue, maxValue, variableName);
        return value;
    }

    unsigned long long readUnsignedLong() {
        std::string token;
        readTokenFor("unsigned int64", token);
        unsigned long long value = 0;
        if (!parseUnsigned(token, value))
            quit(_pe, "Expected unsigned int64, but \"" + compress(token) + "\" found");
        return value;
    }

    unsigned long long readUnsignedLong(unsigned long long minValue, unsigned long long maxValue,
                                        const std::string &variableName = "") {
        unsigned long long value = readUnsignedLong();
        checkRange("Unsigned integer", value, minValue, maxValue, variableName);
        return value;
    }

    int readInt() {
        std::string token;
        readTokenFor("int32", token);
        long long value = 0;
        if (!parseSigned(token, value) || value < INT_MIN || value > INT_MAX)
            quit(_pe, "Expected int32, but \"" + compress(token) + "\" found");
        return static_cast<int>(value);
    }

    int readInt(int minValue, int maxValue, const std::string &variableName = "") {
        int value = readInt();
        checkRange("Integer", value, minValue, maxValue, variableName);
        return value;
    }

    int readInteger() { return readInt(); }

    int readInteger(int minValue, int maxValue, const std::string &variableName = "") {
        return readInt(minValue, maxValue, variableName);
    }

    double readDouble() {
        std::string token;
        readTokenFor("double", token);
        double value = 0;
        if (!parseDouble(token, value))
            quit(_pe, "Expected double, but \"" + compress(token) + "\" found");
        return value;
    }

    double readDouble(double minValue, double maxValue, const std::string &variableName = "") {
        double value = readDouble();
        checkRange("Double", value, minValue, maxValue, variableName);
        return value;
    }

    double readReal() { return readDouble(); }

    double readReal(double minValue, double maxValue, const std::string &variableName = "") {
        return readDouble(minValue, maxValue, variableName);
    }

    /* A fixed-point number: -?(0|[1-9][0-9]*)(.[0-9]+)?, no "-0", with a number of digits
     * after the point in [minAfterPoint, maxAfterPoint]. */
    double readStrictDouble(double minValue, double maxValue, int minAfterPoint,
                            int maxAfterPoint, const std::string &variableName = "") {
        std::string token;
        readTokenFor("strict double", token);
        double value = 0;
        if (!parseStrictDouble(token, minAfterPoint, maxAfterPoint, value))
            quit(_pe, "Expected strict double with number of digits after point in range [" +
                          vtos(minAfterPoint) + ", " + vtos(maxAfterPoint) + "], but \"" +
                          compress(token) + "\" found");
        checkRange("Strict double", value, minValue, maxValue, variableName);
        return value;
    }

    double readStrictReal(double minValue, double maxValue, int minAfterPoint, int maxAfterPoint,
                          const std::string &variableName = "") {
        return readStrictDouble(minValue, maxValue, minAfterPoint, maxAfterPoint, variableName);
    }

    /* lines */
    void readStringTo(std::string &result) {
        lastLine = line_;
        result.clear();
        for (;;) {
            int c = curChar();
            if (c == EOFC || c == LF)
                break;
            if (c == CR && !strict) {
                nextChar();
                if (curChar() == LF)
                    break;
                result += CR;
                continue;
            }
            result += static_cast<char>(nextChar());
        }
        if (strict)
            readEoln();
        else
            eoln();
    }

    void readLineTo(std::string &result) { readStringTo(result); }

    std::string readString() {
        std::string result;
        readStringTo(result);
        return result;
    }

    std::string readLine() { return readString(); }

    std::string readString(const pattern &p, const std::string &variableName = "") {
        std::string result = readString();
        checkPattern("Line", result, p, variableName);
        return result;
    }

    std::string readString(const std::string &ptrn, const std::string &variableName = "") {
        return readString(pattern(ptrn), variableName);
    }

    std::string readString(const char *ptrn, const std::string &variableName = "") {
        return readString(pattern(ptrn), variableName);
    }

    std::string readLine(const pattern &p, const std::string &variableName = "") {
        return readString(p, variableName);
    }

    std::string readLine(const std::string &ptrn, const std::string &variableName = "") {
        return readString(pattern(ptrn), variableName);
    }

    std::string readLine(const char *ptrn, const std::string &variableName = "") {
        return readString(pattern(ptrn), variableName);
    }

    /* several values: separated by single spaces in strict mode, by any blanks otherwise */
    std::vector<int> readInts(int size, int minValue, int maxValue,
                              const std::string &variablesName = "", int indexBase = 1) {
        std::vector<int> result;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(readInt(minValue, maxValue, element(variablesName, i + indexBase)));
        }
        return result;
    }

    std::vector<int> readInts(int size, int indexBase = 1) {
        return readInts(size, INT_MIN, INT_MAX, "", indexBase);
    }

    std::vector<int> readIntegers(int size, int minValue, int maxValue,
                                  const std::string &variablesName = "", int indexBase = 1) {
        return readInts(size, minValue, maxValue, variablesName, indexBase);
    }

    std::vector<long long> readLongs(int size, long long minValue, long long maxValue,
                                     const std::string &variablesName = "", int indexBase = 1) {
        std::vector<long long> result;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(readLong(minValue, maxValue, element(variablesName, i + indexBase)));
        }
        return result;
    }

    std::vector<long long> readLongs(int size, int indexBase = 1) {
        return readLongs(size, LLONG_MIN, LLONG_MAX, "", indexBase);
    }

    std::vector<double> readDoubles(int size, double minValue, double maxValue,
                                    const std::string &variablesName = "", int indexBase = 1) {
        std::vector<double> result;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(
                readDouble(minValue, maxValue, element(variablesName, i + indexBase)));
        }
        return result;
    }

    std::vector<double> readDoubles(int size, int indexBase = 1) {
        std::vector<double> result;
        (void)indexBase;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(readDouble());
        }
        return result;
    }

    std::vector<double> readReals(int size, double minValue, double maxValue,
                                  const std::string &variablesName = "", int indexBase = 1) {
        return readDoubles(size, minValue, maxValue, variablesName, indexBase);
    }

    std::vector<double> readReals(int size, int indexBase = 1) {
        return readDoubles(size, indexBase);
    }

    std::vector<std::string> readWords(int size, const std::string &ptrn,
                                       const std::string &variablesName = "",
                                       int indexBase = 1) {
        pattern p(ptrn);
        std::vector<std::string> result;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(readWord(p, element(variablesName, i + indexBase)));
        }
        return result;
    }

    std::vector<std::string> readWords(int size, int indexBase = 1) {
        std::vector<std::string> result;
        (void)indexBase;
        for (int i = 0; i < size; i++) {
            separate(i);
            result.push_back(readWord());
        }
        return result;
    }

    std::vector<std::string> readTokens(int size, const std::string &ptrn,
                                        const std::string &variablesName = "",
                                        int indexBase = 1) {
        return readWords(size, ptrn, variablesName, indexBase);
    }

    std::vector<std::string> readTokens(int size, int indexBase = 1) {
        return readWords(size, indexBase);
    }

    std::vector<std::string> readLines(int size, const std::string &ptrn,
                                       const std::string &variablesName = "",
                                       int indexBase = 1) {
        pattern p(ptrn);
        std::vector<std::string> result;
        for (int i = 0; i < size; i++)
            result.push_back(readLine(p, element(variablesName, i + indexBase)));
        return result;
    }

    std::vector<std::string> readLines(int size, int indexBase = 1) {
        std::vector<std::string> result;
        (void)indexBase;
        for (int i = 0; i < size; i++)
            result.push_back(readLine());
        return result;
    }

    std::vector<std::string> readStrings(int size, int indexBase = 1) {
        return readLines(size, indexBase);
    }

    /* verdicts: on `ouf` as given; on `inf` and `ans` a checker failure */
    [[noreturn]] void quit(TResult result, const char *msg);
    [[noreturn]] void quit(TResult result, const std::string &msg) { quit(result, msg.c_str()); }
    [[noreturn]] void quits(TResult result, const std::string &msg) { quit(result, msg.c_str()); }
    [[noreturn]] void quitf(TResult result, const char *fmt, ...) __TESTLIB_PRINTF(3, 4);
    void ensuref(bool condition, const char *fmt, ...) __TESTLIB_PRINTF(3, 4);

  private:
    std::FILE *file_;
    bool ownsFile_;
    std::string data_;
    size_t pos_;
    std::vector<int> back_;
    int line_;

    int raw() {
        if (file_ != NULL)
            return __TESTLIB_GETC(file_);
        if (pos_ < data_.size())
            return static_cast<unsigned char>(data_[pos_++]);
        return EOFC;
    }

    static std::string printable(char c) {
        if (c == LF)
            return "EOLN";
        if (c == CR)
            return "'\\r'";
        if (c == TAB)
            return "TAB";
        return std::string("'") + c + "'";
    }

    static std::string element(const std::string &variablesName, int index) {
        if (variablesName.empty())
            return "";
        return variablesName + "[" + vtos(index) + "]";
    }

    void separate(int index) {
        if (index > 0 && strict)
            readSpace();
    }

    void readTokenFor(const char *what, std::string &result) {
        if (!strict)
            skipBlanks();
        lastLine = line_;
        int c = curChar();
        if (c == EOFC)
            quit(_unexpected_eof, std::string("Unexpected end of file - ") + what + " expected");
        if (isBlanks(static_cast<char>(c)))
            quit(_pe, std::string("Unexpected white-space - ") + what + " expected");
        result.clear();
        while (c != EOFC && !isBlanks(static_cast<char>(c))) {
            result += static_cast<char>(nextChar());
            c = curChar();
        }
    }

    void checkPattern(const char *kind, const std::string &value, const pattern &p,
                      const std::string &variableName) {
        if (p.matches(value))
            return;
        std::string shown = "\"" + compress(value) + "\"";
        std::string ptrn = "\"" + p.src() + "\"";
        if (variableName.empty())
            quit(_wa, std::string(kind) + " " + shown + " doesn't correspond to pattern " + ptrn);
        std::string what = std::string(kind) == "Line" ? "Line [name=" : "Token parameter [name=";
        quit(_wa, what + variableName + "] equals to " + shown +
                      ", doesn't correspond to pattern " + ptrn);
    }

    template <typename T>
    void checkRange(const char *kind, T value, T minValue, T maxValue,
                    const std::string &variableName) {
        if (!(value < minValue) && !(maxValue < value))
            return;
        std::string bounds = "[" + vtos(minValue) + ", " + vtos(maxValue) + "]";
        if (variableName.empty())
            quit(_wa, std::string(kind) + " " + vtos(value) + " violates the range " + bounds);
        quit(_wa, std::string(kind) + " parameter [name=" + variableName + "] equals to " +
                      vtos(value) + ", violates the range " + bounds);
    }

    /* -?[0-9]+ fitting in 64 bits; in strict mode also no leading zeros and no "-0". */
    bool parseSigned(const std::string &s, long long &out) const {
        size_t i = 0;
        bool negative = false;
        if (i < s.size() && s[i] == '-') {
            negative = true;
            i++;
        }
        unsigned long long magnitude = 0;
        unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
        if (!parseDigits(s, i, limit, magnitude))
            return false;
        if (strict && negative && magnitude == 0)
            return false;
        if (!negative)
            out = static_cast<long long>(magnitude);
        else if (magnitude == 9223372036854775808ULL)
            out = LLONG_MIN;
        else
            out = -static_cast<long long>(magnitude);
        return true;
    }

    bool parseUnsigned(const std::string &s, unsigned long long &out) const {
        return parseDigits(s, 0, ULLONG_MAX, out);
    }

    bool parseDigits(const std::string &s, size_t i, unsigned long long limit,
                     unsigned long long &out) const {
        if (i >= s.size())
            return false;
        if (strict && s[i] == '0' && s.size() - i > 1)
            return false;
        unsigned long long v = 0;
        for (; i < s.size(); i++) {
            if (s[i] < '0' || s[i] > '9')
                return false;
            unsigned long long digit = static_cast<unsigned long long>(s[i] - '0');
            if (v > (limit - digit) / 10)
                return false;
            v = v * 10 + digit;
        }
        out = v;
        return true;
    }

    static bool parseDouble(const std::string &s, double &out) {
        bool digit = false;
        for (size_t i = 0; i < s.size(); i++) {
            char c = s[i];
            if (c >= '0' && c <= '9')
                digit = true;
            else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E')
                return false;
        }
        if (!digit)
            return false;
        char *end = NULL;
        errno = 0;
        double v = std::strtod(s.c_str(), &end);
        if (end != s.c_str() + s.size() || std::isnan(v) || std::isinf(v))
            return false;
        out = v;
        return true;
    }

    static bool parseStrictDouble(const std::string &s, int minAfterPoint, int maxAfterPoint,
                                  double &out) {
        size_t i = 0;
        if (i < s.size() && s[i] == '-')
            i++;
        size_t intStart = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            i++;
        size_t intDigits = i - intStart;
        if (intDigits == 0 || (intDigits > 1 && s[intStart] == '0'))
            return false;
        int afterPoint = 0;
        if (i < s.size() && s[i] == '.') {
            i++;
            size_t fracStart = i;
            while (i < s.size() && s[i] >= '0' && s[i] <= '9')
                i++;
            if (i == fracStart)
                return false;
            afterPoint = static_cast<int>(i - fracStart);
        }
        if (i != s.size() || afterPoint < minAfterPoint || afterPoint > maxAfterPoint)
            return false;
        double v = std::strtod(s.c_str(), NULL);
        if (s[0] == '-' && v == 0.0)
            return false;
        if (std::isinf(v))
            return false;
        out = v;
        return true;
    }
};

InStream inf;
InStream ouf;
InStream ans;
std::fstream tout;

inline void InStream::init(const std::string &fileName, TMode streamMode) {
    close();
    name = fileName;
    mode = streamMode;
    std::FILE *f = std::fopen(fileName.c_str(), "rb");
    if (f == NULL) {
        if (streamMode == _output)
            ::quit(_pe, "Output file not found: \"" + fileName + "\"");
        ::quit(_fail, "File not found: \"" + fileName + "\"");
    }
    file_ = f;
    ownsFile_ = true;
    opened = true;
    line_ = 1;
    back_.clear();
}

inline void InStream::init(std::FILE *f, TMode streamMode) {
    close();
    name = f == stdin ? "stdin" : "file";
    mode = streamMode;
    file_ = f;
    ownsFile_ = false;
    opened = true;
    line_ = 1;
    back_.clear();
}

inline void InStream::close() {
    if (file_ != NULL && ownsFile_)
        std::fclose(file_);
    file_ = NULL;
    ownsFile_ = false;
    opened = false;
    back_.clear();
}

inline void InStream::quit(TResult result, const char *msg) {
    std::string text(msg);
    if (testlibMode == _validator && mode == _input) {
        ::quit(_fail, text + " (" + name + ", line " + vtos(lastLine) + ")");
    }
    if (mode != _output && result != _fail && result != _ok) {
        ::quit(_fail, text + " (" + name + ")");
    }
    ::quit(result, text);
}

inline void InStream::quitf(TResult result, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quit(result, msg);
}

inline void InStream::ensuref(bool condition, const char *fmt, ...) {
    if (condition)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quit(_wa, msg);
}

/* ------------------------------------------------------------------ quitting */

inline int __testlib_exitCode(TResult result) {
    switch (result) {
    case _ok:
        return OK_EXIT_CODE;
    case _wa:
        return WA_EXIT_CODE;
    case _pe:
        return PE_EXIT_CODE;
    case _fail:
        return FAIL_EXIT_CODE;
    case _dirt:
        return DIRT_EXIT_CODE;
    case _points:
        return POINTS_EXIT_CODE;
    case _unexpected_eof:
        return UNEXPECTED_EOF_EXIT_CODE;
    default:
        return PC_BASE_EXIT_CODE + (static_cast<int>(result) - _partially);
    }
}

inline std::string __testlib_xmlEscape(const std::string &s) {
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

inline void quit(TResult result, const std::string &msg) {
    __testlib_quitCount++;
    std::string text = msg;
    bool accepted = result == _ok || result == _points || result >= _partially;
    if (accepted && testlibMode == _checker && ouf.opened && !ouf.seekEof()) {
        result = _dirt;
        text = "Extra information in the output file";
    }
#ifndef ENABLE_UNEXPECTED_EOF
    if (result == _unexpected_eof)
        result = _pe;
#endif
    std::string prefix;
    std::string outcome;
    switch (result) {
    case _ok:
        prefix = "ok ";
        outcome = "accepted";
        break;
    case _wa:
        prefix = "wrong answer ";
        outcome = "wrong-answer";
        break;
    case _pe:
        prefix = "wrong output format ";
        outcome = "presentation-error";
        break;
    case _dirt:
        prefix = "wrong output format ";
        outcome = "presentation-error";
        result = _pe;
        break;
    case _fail:
        prefix = "FAIL ";
        outcome = "fail";
        break;
    case _points:
        prefix = "points ";
        outcome = "points";
        break;
    case _unexpected_eof:
        prefix = "unexpected eof ";
        outcome = "unexpected-eof";
        break;
    default:
        if (result < _partially) {
            prefix = "FAIL ";
            outcome = "fail";
            text = "What is the code " + vtos(static_cast<int>(result)) + "? " + text;
            result = _fail;
        } else {
            prefix = "partially correct (" + vtos(static_cast<int>(result) - _partially) + ") ";
            outcome = "partially-correct";
        }
    }
    int code = __testlib_exitCode(result);
    std::cout.flush();
    std::fflush(stdout);
    if (resultName.empty()) {
        std::fprintf(stderr, "%s%s\n", prefix.c_str(), text.c_str());
    } else {
        std::FILE *report = std::fopen(resultName.c_str(), "w");
        if (report == NULL) {
            std::fprintf(stderr, "FAIL Can not write to the result file \"%s\"\n",
                         resultName.c_str());
            code = FAIL_EXIT_CODE;
        } else if (appesMode) {
            std::string points;
            if (result == _points)
                points = " points = \"" + __testlib_xmlEscape(__testlib_pointsText) + "\"";
            std::fprintf(report,
                         "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
                         "<result outcome = \"%s\"%s>%s</result>\n",
                         outcome.c_str(), points.c_str(), __testlib_xmlEscape(text).c_str());
            std::fclose(report);
        } else {
            std::fprintf(report, "%s%s\n", prefix.c_str(), text.c_str());
            std::fclose(report);
        }
    }
    std::fflush(stderr);
    if (tout.is_open())
        tout.close();
    std::exit(code);
}

inline void quit(TResult result, const char *msg) { quit(result, std::string(msg)); }

inline void quits(TResult result, const std::string &msg) { quit(result, msg); }

inline void quitf(TResult result, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quit(result, msg);
}

inline void __testlib_fail(const std::string &msg) { quit(_fail, msg); }

inline std::string __testlib_pointsString(double points) {
    std::string s = __testlib_format_c("%.10f", points);
    while (!s.empty() && s[s.size() - 1] == '0')
        s.erase(s.size() - 1);
    if (!s.empty() && s[s.size() - 1] == '.')
        s.erase(s.size() - 1);
    return s == "-0" ? "0" : s;
}

/* "points <points> <message>", exit code POINTS_EXIT_CODE. */
[[noreturn]] inline void quitp(double points, const std::string &message = "") {
    __testlib_pointsText = __testlib_pointsString(points);
    quit(_points, message.empty() ? __testlib_pointsText : __testlib_pointsText + " " + message);
}

[[noreturn]] inline void quitp(double points, const char *fmt, ...) __TESTLIB_PRINTF(2, 3);

inline void quitp(double points, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = __testlib_vformat(fmt, ap);
    va_end(ap);
    quitp(points, msg);
}

/* A checker must end with a verdict and a validator with inf.readEof(); checked when main
 * returns. */
struct __testlib_FinalizeGuard {
    ~__testlib_FinalizeGuard() {
        const char *problem = NULL;
        if (testlibMode == _checker && __testlib_quitCount == 0)
            problem = "FAIL Checker must end with quit or quitf call.";
        if (testlibMode == _validator && __testlib_quitCount == 0 && __testlib_readEofCount == 0)
            problem = "FAIL Validator must end with readEof call.";
        if (problem == NULL)
            return;
        std::cout.flush();
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", problem);
        std::fflush(stderr);
        std::_Exit(FAIL_EXIT_CODE);
    }
};

__testlib_FinalizeGuard __testlib_finalizeGuard;

/* ------------------------------------------------------------------ registration */

class Validator {
  public:
    std::string testset() const { return testset_; }
    std::string group() const { return group_; }
    void setTestset(const char *value) { testset_ = value; }
    void setGroup(const char *value) { group_ = value; }

  private:
    std::string testset_ = "tests";
    std::string group_;
};

Validator validator;

/* checker input output answer [report [-appes]] */
inline void registerTestlibCmd(int argc, char *argv[]) {
    testlibMode = _checker;
    if (argc < 4 || argc > 6) {
        __testlib_fail(checkerName +
                       ": program must be run with the following arguments: <input-file> "
                       "<output-file> <answer-file> [<report-file> [<-appes>]]");
    }
    if (argc > 4)
        resultName = argv[4];
    if (argc > 5)
        appesMode = lowerCase(argv[5]) == "-appes";
    inf.init(argv[1], _input);
    ouf.init(argv[2], _output);
    ans.init(argv[3], _answer);
}

inline void registerTestlib(int argc, char *argv[]) { registerTestlibCmd(argc, argv); }

/* The test on stdin, read strictly: every space, end of line and the end of file. */
inline void registerValidation() {
    testlibMode = _validator;
    inf.init(stdin, _input);
    inf.strict = true;
}

/* Also reads --testset NAME and --group NAME (or --testset=NAME). */
inline void registerValidation(int argc, char *argv[]) {
    registerValidation();
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        std::string value;
        std::string key = arg;
        size_t eq = arg.find('=');
        if (eq != std::string::npos) {
            key = arg.substr(0, eq);
            value = arg.substr(eq + 1);
        } else if (i + 1 < argc && (arg == "--testset" || arg == "--group")) {
            value = argv[++i];
        }
        if (key == "--testset")
            validator.setTestset(value.c_str());
        else if (key == "--group")
            validator.setGroup(value.c_str());
    }
}

/* interactor input output-log [answer]; the participant's output is stdin, its input is
 * stdout. */
inline void registerInteraction(int argc, char *argv[]) {
    testlibMode = _interactor;
    if (argc < 3 || argc > 6) {
        __testlib_fail("interactor must be run with the following arguments: <input-file> "
                       "<output-file> [<answer-file> [<report-file> [<-appes>]]]");
    }
    inf.init(argv[1], _input);
    tout.open(argv[2], std::ios_base::out | std::ios_base::trunc);
    if (!tout.is_open())
        __testlib_fail(std::string("Can not write to the output file \"") + argv[2] + "\"");
    if (argc > 3)
        ans.init(argv[3], _answer);
    if (argc > 4)
        resultName = argv[4];
    if (argc > 5)
        appesMode = lowerCase(argv[5]) == "-appes";
    ouf.init(stdin, _output);
}

/* generator options: -key=value, --key=value, -key value, or a bare -flag (true) */
std::vector<std::string> __testlib_argv;
std::map<std::string, std::string> __testlib_opts;

inline bool __testlib_isOptKey(const std::string &arg) {
    if (arg.size() < 2 || arg[0] != '-')
        return false;
    char c = arg[1];
    return !(c >= '0' && c <= '9') && c != '.';
}

inline void __testlib_parseOpts(int argc, char *argv[]) {
    __testlib_argv.assign(argv, argv + argc);
    __testlib_opts.clear();
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (!__testlib_isOptKey(arg))
            continue;
        size_t start = arg.find_first_not_of('-');
        std::string key = arg.substr(start);
        std::string value = "true";
        size_t eq = key.find('=');
        if (eq != std::string::npos) {
            value = key.substr(eq + 1);
            key = key.substr(0, eq);
        } else if (i + 1 < argc && !__testlib_isOptKey(argv[i + 1])) {
            value = argv[++i];
        }
        __testlib_opts[key] = value;
    }
}

/* Seeds rnd from a hash of the command line, so a generator's output is a function of its
 * arguments. randomGeneratorVersion is accepted and ignored. */
inline void registerGen(int argc, char *argv[], int randomGeneratorVersion = 1) {
    (void)randomGeneratorVersion;
    testlibMode = _generator;
    rnd.setSeed(argc, argv);
    __testlib_parseOpts(argc, argv);
}

inline bool has_opt(const std::string &key) {
    return __testlib_opts.find(key) != __testlib_opts.end();
}

inline void __testlib_optParse(const std::string &key, const std::string &s, std::string &out) {
    (void)key;
    out = s;
}

inline void __testlib_optParse(const std::string &key, const std::string &s, bool &out) {
    std::string v = lowerCase(s);
    if (v == "true" || v == "1" || v == "yes")
        out = true;
    else if (v == "false" || v == "0" || v == "no")
        out = false;
    else
        __testlib_fail("Opts: the value \"" + s + "\" of '" + key + "' is not a bool");
}

inline void __testlib_optParse(const std::string &key, const std::string &s, char &out) {
    if (s.size() != 1)
        __testlib_fail("Opts: the value \"" + s + "\" of '" + key + "' is not one char");
    out = s[0];
}

template <typename T>
typename std::enable_if<std::is_floating_point<T>::value>::type
__testlib_optParse(const std::string &key, const std::string &s, T &out) {
    char *end = NULL;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
        __testlib_fail("Opts: the value \"" + s + "\" of '" + key + "' is not a number");
    out = static_cast<T>(v);
}

/* Integers also in the 1e5 / 2.5e6 forms when the value is whole. */
template <typename T>
typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                        !std::is_same<T, char>::value>::type
__testlib_optParse(const std::string &key, const std::string &s, T &out) {
    std::string bad = "Opts: the value \"" + s + "\" of '" + key + "' is not a valid integer";
    if (s.empty())
        __testlib_fail(bad);
    if (s.find_first_of("eE.") != std::string::npos) {
        char *end = NULL;
        long double v = std::strtold(s.c_str(), &end);
        if (end != s.c_str() + s.size() || v != std::floor(v) ||
            v < static_cast<long double>(std::numeric_limits<T>::min()) ||
            v > static_cast<long double>(std::numeric_limits<T>::max()))
            __testlib_fail(bad);
        out = static_cast<T>(v);
        return;
    }
    size_t i = 0;
    bool negative = s[0] == '-';
    if (negative || s[0] == '+')
        i++;
    if (i == s.size() || (negative && !std::numeric_limits<T>::is_signed))
        __testlib_fail(bad);
    unsigned long long magnitude = 0;
    for (; i < s.size(); i++) {
        if (s[i] < '0' || s[i] > '9')
            __testlib_fail(bad);
        unsigned long long digit = static_cast<unsigned long long>(s[i] - '0');
        if (magnitude > (ULLONG_MAX - digit) / 10)
            __testlib_fail(bad);
        magnitude = magnitude * 10 + digit;
    }
    if (negative) {
        unsigned long long limit =
            static_cast<unsigned long long>(-(std::numeric_limits<T>::min() + 1)) + 1;
        if (magnitude > limit)
            __testlib_fail(bad);
        out = magnitude == limit ? std::numeric_limits<T>::min()
                                 : static_cast<T>(-static_cast<long long>(magnitude));
    } else {
        if (magnitude > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
            __testlib_fail(bad);
        out = static_cast<T>(magnitude);
    }
}

template <typename T>
T opt(const std::string &key) {
    std::map<std::string, std::string>::const_iterator it = __testlib_opts.find(key);
    if (it == __testlib_opts.end())
        __testlib_fail("Opts: unknown key '" + key + "'");
    T value = T();
    __testlib_optParse(key, it->second, value);
    return value;
}

template <typename T>
T opt(const std::string &key, const T &defaultValue) {
    if (!has_opt(key))
        return defaultValue;
    return opt<T>(key);
}

/* The index-th command-line argument (1 is the first after the program). */
template <typename T>
T opt(int index) {
    if (index < 0 || index >= static_cast<int>(__testlib_argv.size()))
        __testlib_fail("Opts: index " + vtos(index) + " is out of range");
    T value = T();
    __testlib_optParse("#" + vtos(index), __testlib_argv[static_cast<size_t>(index)], value);
    return value;
}

/* println(a, b, ...): the values separated by spaces, then a newline; a vector prints its
 * elements separated by spaces. */
template <typename T>
void __testlib_printOne(const T &value) {
    std::cout << value;
}

template <typename T>
void __testlib_printOne(const std::vector<T> &values) {
    for (size_t i = 0; i < values.size(); i++) {
        if (i > 0)
            std::cout << ' ';
        std::cout << values[i];
    }
}

inline void __testlib_printRest() { std::cout << '\n'; }

template <typename T, typename... Rest>
void __testlib_printRest(const T &first, const Rest &...rest) {
    std::cout << ' ';
    __testlib_printOne(first);
    __testlib_printRest(rest...);
}

inline void println() { std::cout << '\n'; }

template <typename T, typename... Rest>
void println(const T &first, const Rest &...rest) {
    __testlib_printOne(first);
    __testlib_printRest(rest...);
}

/* ------------------------------------------------------------------ validator shortcuts */

inline int readInt() { return inf.readInt(); }
inline int readInt(int minValue, int maxValue, const std::string &variableName = "") {
    return inf.readInt(minValue, maxValue, variableName);
}
inline int readInteger() { return inf.readInt(); }
inline int readInteger(int minValue, int maxValue, const std::string &variableName = "") {
    return inf.readInt(minValue, maxValue, variableName);
}
inline long long readLong() { return inf.readLong(); }
inline long long readLong(long long minValue, long long maxValue,
                          const std::string &variableName = "") {
    return inf.readLong(minValue, maxValue, variableName);
}
inline unsigned long long readUnsignedLong() { return inf.readUnsignedLong(); }
inline unsigned long long readUnsignedLong(unsigned long long minValue,
                                           unsigned long long maxValue,
                                           const std::string &variableName = "") {
    return inf.readUnsignedLong(minValue, maxValue, variableName);
}
inline double readDouble() { return inf.readDouble(); }
inline double readDouble(double minValue, double maxValue, const std::string &variableName = "") {
    return inf.readDouble(minValue, maxValue, variableName);
}
inline double readReal() { return inf.readDouble(); }
inline double readReal(double minValue, double maxValue, const std::string &variableName = "") {
    return inf.readDouble(minValue, maxValue, variableName);
}
inline double readStrictDouble(double minValue, double maxValue, int minAfterPoint,
                               int maxAfterPoint, const std::string &variableName = "") {
    return inf.readStrictDouble(minValue, maxValue, minAfterPoint, maxAfterPoint, variableName);
}
inline double readStrictReal(double minValue, double maxValue, int minAfterPoint,
                             int maxAfterPoint, const std::string &variableName = "") {
    return inf.readStrictDouble(minValue, maxValue, minAfterPoint, maxAfterPoint, variableName);
}
inline std::string readWord() { return inf.readWord(); }
inline std::string readWord(const std::string &ptrn, const std::string &variableName = "") {
    return inf.readWord(ptrn, variableName);
}
inline std::string readToken() { return inf.readWord(); }
inline std::string readToken(const std::string &ptrn, const std::string &variableName = "") {
    return inf.readWord(ptrn, variableName);
}
inline std::string readString() { return inf.readString(); }
inline std::string readString(const std::string &ptrn, const std::string &variableName = "") {
    return inf.readString(ptrn, variableName);
}
inline std::string readLine() { return inf.readString(); }
inline std::string readLine(const std::string &ptrn, const std::string &variableName = "") {
    return inf.readString(ptrn, variableName);
}
inline char readChar() { return inf.readChar(); }
inline char readChar(char expected) { return inf.readChar(expected); }
inline void readSpace() { inf.readSpace(); }
inline void readEoln() { inf.readEoln(); }
inline void readEof() { inf.readEof(); }
inline std::vector<int> readInts(int size, int minValue, int maxValue,
                                 const std::string &variablesName = "", int indexBase = 1) {
    return inf.readInts(size, minValue, maxValue, variablesName, indexBase);
}
inline std::vector<long long> readLongs(int size, long long minValue, long long maxValue,
                                        const std::string &variablesName = "",
                                        int indexBase = 1) {
    return inf.readLongs(size, minValue, maxValue, variablesName, indexBase);
}
inline std::vector<double> readDoubles(int size, double minValue, double maxValue,
                                       const std::string &variablesName = "", int indexBase = 1) {
    return inf.readDoubles(size, minValue, maxValue, variablesName, indexBase);
}
inline std::vector<std::string> readTokens(int size, const std::string &ptrn,
                                           const std::string &variablesName = "",
                                           int indexBase = 1) {
    return inf.readTokens(size, ptrn, variablesName, indexBase);
}
inline std::vector<std::string> readLines(int size, const std::string &ptrn,
                                          const std::string &variablesName = "",
                                          int indexBase = 1) {
    return inf.readLines(size, ptrn, variablesName, indexBase);
}

#endif /* EXECRL_TESTLIB_H */
