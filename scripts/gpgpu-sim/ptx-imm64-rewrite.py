"""Rewrites PTX for GPGPU-Sim: 64-bit integer immediates.

The simulator's PTX parser keeps only the low 32 bits of an integer
immediate, so `mul.lo.s64 %rd2, %rd1, 4294967299` multiplies by 3 and
`add.s64 %rd2, %rd1, 21474836487` adds 7 (a probe on the SM7_QV100 config:
docs/gpu.md, "On a simulated GPU"). Its 32-bit register moves and the
64-bit pack `mov.b64 %rd, {%lo, %hi}` are exact, so each immediate of a
64-bit instruction that does not fit in 32 bits signed becomes a register
packed from its two halves just before the instruction. The project's
kernels have no such immediate today (scripts/gpgpu-sim/check.sh runs this
on their PTX anyway); a kernel that gains one stays exact on the simulator.

Usage: python3 ptx-imm64-rewrite.py FILE... (rewritten in place), after
../shared/tools/gpgpu-sim/ptx-shf-rewrite.py.
"""
import re
import sys

# An instruction whose type is 64-bit integer, e.g. "add.s64", "mul.lo.u64",
# "and.b64", "setp.lt.s64", optionally predicated.
INSN = re.compile(r'^(\s*)(@!?%\w+\s+)?([a-z][\w.]*\.[sub]64)\s+(.*);\s*$')
IMM = re.compile(r'(?<![\w%.$])(-?(?:0[xX][0-9a-fA-F]+|\d+))(?![\w.])')
DECL = '\t.reg .b32 %imlo, %imhi;\n\t.reg .b64 %imq<{}>;'


def value(text):
    neg = text.startswith('-')
    t = text.lstrip('-')
    v = int(t, 16) if t.lower().startswith('0x') else int(t)
    return -v if neg else v


def rewrite(lines):
    out, used, first_body = [], 0, None
    for line in lines:
        m = INSN.match(line)
        if m and not line.lstrip().startswith('//'):
            ind, guard, op, args = m.groups()
            pre, k = [], [0]

            def sub(im):
                v = value(im.group(1))
                if -(1 << 31) <= v < (1 << 32):
                    return im.group(1)
                v &= (1 << 64) - 1
                reg = '%%imq%d' % (used + k[0])
                k[0] += 1
                pre.append('%smov.b32 %%imlo, %d;' % (ind, v & 0xffffffff))
                pre.append('%smov.b32 %%imhi, %d;' % (ind, v >> 32))
                pre.append('%smov.b64 %s, {%%imlo, %%imhi};' % (ind, reg))
                return reg

            # Only the operands after the destination are immediates.
            parts = args.split(',', 1)
            if len(parts) == 2:
                new = parts[0] + ',' + IMM.sub(sub, parts[1])
                if pre:
                    used += k[0]
                    out.extend(pre)
                    line = '%s%s%s %s;' % (ind, guard or '', op, new)
        out.append(line)
    if used:
        # Declare the registers after each function's first .reg line
        # (the count is the file's: an upper bound for each function).
        final, done = [], False
        for line in out:
            final.append(line)
            if line.strip().startswith('.reg') and not done:
                final.append(DECL.format(used))
                done = True
            if re.match(r'^\s*(\.visible\s+|\.weak\s+)?\.(entry|func)\b', line):
                done = False  # a new function: declare again
        out = final
    return out


for f in sys.argv[1:]:
    with open(f) as fh:
        lines = fh.read().splitlines()
    with open(f, 'w') as fh:
        fh.write('\n'.join(rewrite(lines)) + '\n')
