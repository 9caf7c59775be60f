import sys


def is_balanced(s):
    # Remove innermost pairs until nothing changes: O(length * depth).
    while True:
        shorter = s.replace("()", "").replace("[]", "").replace("{}", "")
        if shorter == s:
            return s == ""
        s = shorter


def main():
    lines = sys.stdin.read().split()
    t = int(lines[0])
    answers = ["YES" if is_balanced(s) else "NO" for s in lines[1 : t + 1]]
    print("\n".join(answers))


main()
