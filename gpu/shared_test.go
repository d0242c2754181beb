package gpu

import (
	"strings"
	"testing"
)

// TestFitShared checks the block sizes and shared memory of the kernels
// with stacks in shared memory, the kernel's static shared memory
// included: nq_symmetry_boards_smem has 768 bytes of its own, so 512
// threads at N=14, depth 3 (exactly 48 KiB of stacks) do not fit in
// 48 KiB, and do with an H100's opt-in.
func TestFitShared(t *testing.T) {
	const h100 = 227 << 10
	for _, c := range []struct {
		name           string
		bytes          func(n, depth, threads int) int
		n, depth       int
		threads        int
		sh             sharedShape
		wantThreads    int
		wantDynamic    int
		wantOptIn      bool
		wantErrContain string
	}{
		{"smem 512 threads, static 768, no opt-in", symStackBytes, 14, 3, 512, sharedShape{static: 768}, 0, 0, false, "49152 bytes of stacks and 768"},
		{"smem 512 threads, static 768, H100", symStackBytes, 14, 3, 512, sharedShape{static: 768, limit: h100}, 512, 49152, true, ""},
		{"smem 384 threads, static 768", symStackBytes, 14, 3, 384, sharedShape{static: 768}, 384, 36864, false, ""},
		{"smem default shrinks by the static bytes", symStackBytes, 28, 3, 0, sharedShape{static: 768, limit: 16 << 10}, 64, 13312, false, ""},
		{"eightfold 256 at N=20 split 3 just fits 48 KiB", efStackBytes, 20, 3, 256, sharedShape{}, 256, 49152, false, ""},
		{"eightfold 256 at N=20 split 2 without opt-in", efStackBytes, 20, 2, 256, sharedShape{}, 0, 0, false, "53248 bytes of stacks"},
		{"eightfold 256 at N=20 split 2 on an H100", efStackBytes, 20, 2, 256, sharedShape{limit: h100}, 256, 53248, true, ""},
		{"eightfold default at N=28 split 5 in 48 KiB", efStackBytes, 28, 5, 0, sharedShape{}, DefaultThreads, 16 * 18 * DefaultThreads, false, ""},
		{"eightfold 160 at N=28 split 0 on an H100", efStackBytes, 28, 0, 160, sharedShape{limit: h100}, 160, 16 * 23 * 160, true, ""},
		{"eightfold default at N=28 split 0 fits 48 KiB", efStackBytes, 28, 0, 0, sharedShape{}, DefaultThreads, 16 * 23 * DefaultThreads, false, ""},
		{"no shared stacks", nil, 20, 7, 0, sharedShape{static: 100}, DefaultThreads, 0, false, ""},
	} {
		threads, dyn, err := fitShared(c.bytes, c.n, c.depth, c.threads, c.sh)
		if c.wantErrContain != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrContain) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErrContain)
			}
			continue
		}
		if err != nil || threads != c.wantThreads || dyn != c.wantDynamic || c.sh.needsOptIn(dyn) != c.wantOptIn {
			t.Errorf("%s: %d threads, %d bytes, opt-in %v, %v; want %d, %d, %v",
				c.name, threads, dyn, c.sh.needsOptIn(dyn), err, c.wantThreads, c.wantDynamic, c.wantOptIn)
		}
	}
}
