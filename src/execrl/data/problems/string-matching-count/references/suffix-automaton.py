import sys


def main():
    text, pattern = sys.stdin.buffer.read().split()
    # Suffix automaton of the text; occ[v] = number of end positions of state v's strings.
    length = [0]
    link = [-1]
    nxt = [{}]
    occ = [0]
    last = 0
    for ch in text:
        cur = len(length)
        length.append(length[last] + 1)
        link.append(0)
        nxt.append({})
        occ.append(1)
        p = last
        q = cur
        while p != -1:
            q = nxt[p].setdefault(ch, cur)
            if q != cur:
                break
            p = link[p]
        if p != -1:
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                nxt.append(nxt[q].copy())
                occ.append(0)
                while p != -1:
                    t = nxt[p]
                    if t.get(ch) != q:
                        break
                    t[ch] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    order = sorted(range(1, len(length)), key=length.__getitem__, reverse=True)
    for v in order:
        occ[link[v]] += occ[v]
    v = 0
    for ch in pattern:
        v = nxt[v].get(ch, -1)
        if v == -1:
            print(0)
            return
    print(occ[v])


main()
