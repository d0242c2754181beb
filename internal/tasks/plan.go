package tasks

import (
	"context"
	"crypto/sha256"
	"hash"
	"math/bits"
)

// Digest summarises a task list without searching it: the number of tasks,
// the number of batches they fall into, and a SHA-256 over every task in
// enumeration order. Two runs whose digests are equal hand out the same
// tasks under the same batch numbers, so their batches can be combined
// (checkpoints, shards, several devices).
type Digest struct {
	Tasks   int64
	Batches int
	SHA256  [32]byte
}

// digest runs enumerate, which calls batch once per batch with the tasks
// of the batch and their bytes for the hash, and digests what it gives;
// batch returns ctx's error once ctx is cancelled, which enumerate
// returns.
func digest(ctx context.Context, enumerate func(batch func(tasks int, bytes []byte) error) error) (Digest, error) {
	var d Digest
	h := sha256.New()
	err := enumerate(func(tasks int, bytes []byte) error {
		h.Write(bytes)
		d.Tasks += int64(tasks)
		d.Batches++
		return ctx.Err()
	})
	if err != nil {
		return Digest{}, err
	}
	h.Sum(d.SHA256[:0])
	return d, nil
}

// DigestBoards enumerates the partial boards that EnumerateBoards lists
// for the same arguments and digests them. Each board enters the hash as
// its depth column numbers, one byte each; the attack words follow from
// them.
func DigestBoards(n int, k Kind, depth, batch int) (Digest, error) {
	return DigestBoardsContext(context.Background(), n, k, depth, batch)
}

// DigestBoardsContext is DigestBoards until ctx is cancelled: then it
// returns ctx's error, within one batch.
func DigestBoardsContext(ctx context.Context, n int, k Kind, depth, batch int) (Digest, error) {
	var buf []byte
	return digest(ctx, func(add func(int, []byte) error) error {
		return EnumerateBoards(n, k, depth, batch, func(b *Boards) error {
			buf = buf[:0]
			for _, r := range b.Rows {
				buf = append(buf, byte(bits.TrailingZeros32(r)))
			}
			return add(b.Len(), buf)
		})
	})
}

// DigestFrames enumerates the carry-chain frames that EnumerateFrames lists
// for the same arguments and digests them. Each frame enters the hash as N
// bytes, one per row (0 for a row the frame leaves empty, else the queen's
// column plus one), then its weight and its half-turn flag.
func DigestFrames(n, batch int) (Digest, error) {
	return DigestFramesContext(context.Background(), n, batch)
}

// DigestFramesContext is DigestFrames until ctx is cancelled: then it
// returns ctx's error, within one batch.
func DigestFramesContext(ctx context.Context, n, batch int) (Digest, error) {
	var buf []byte
	return digest(ctx, func(add func(int, []byte) error) error {
		return EnumerateFrames(n, batch, func(f *Frames) error {
			buf = buf[:0]
			for i := 0; i < f.Len(); i++ {
				for _, r := range f.Frame(i) {
					var c byte
					if r != 0 {
						c = byte(bits.TrailingZeros32(r)) + 1
					}
					buf = append(buf, c)
				}
				buf = append(buf, f.Weight[i], f.Sym180[i])
			}
			return add(f.Len(), buf)
		})
	})
}

// DigestEightfold enumerates the eightfold tasks that EnumerateEightfold
// lists for the same arguments and digests them. The tasks come border by
// border; each border with tasks enters the hash once, as N bytes (one
// per row: the column of its queen there, NoQueen for a row without one),
// its weight, the number of its tasks (4 bytes, little-endian) and then
// each task's prefix queens, their columns top down (the same number for
// every task of the border). The words and the shape follow from them.
// (A task is 3 bytes at N=17, not the N+1 of its rows: the digest runs
// next to the workers.)
func DigestEightfold(n, split, batch int) (Digest, error) {
	return DigestEightfoldContext(context.Background(), n, split, batch)
}

// DigestEightfoldContext is DigestEightfold until ctx is cancelled: then
// it returns ctx's error within milliseconds (see
// EnumerateEightfoldContext). At N=26 the whole digest takes about 22 s
// of one core, at N=28 about a minute.
func DigestEightfoldContext(ctx context.Context, n, split, batch int) (Digest, error) {
	var d Digest
	w := &eightfoldDigester{n: n, h: sha256.New()}
	err := enumerateEightfold(ctx, n, split, batch, w, func(e *Eightfold) error {
		d.Tasks += int64(e.Len())
		d.Batches++
		return nil
	})
	if err != nil {
		return Digest{}, err
	}
	w.flush()
	w.h.Sum(d.SHA256[:0])
	return d, nil
}

// eightfoldDigester hashes eightfold tasks as DigestEightfold describes,
// fed by the enumeration: border starts a border's tasks, task adds one.
type eightfoldDigester struct {
	n      int
	h      hash.Hash
	head   []byte // the current border and its weight
	count  uint32 // its tasks so far
	prefix []byte // their prefix queens' columns
}

// border ends the tasks of the border before (hashing them, if any) and
// starts those of the border whose queens cols gives by row (NoQueen
// elsewhere), of the given weight.
func (w *eightfoldDigester) border(cols []uint8, weight byte) {
	w.flush()
	w.head = append(append(w.head[:0], cols[:w.n]...), weight)
}

// task adds a task of the current border, given its prefix queens'
// columns.
func (w *eightfoldDigester) task(prefix []uint8) {
	w.prefix = append(w.prefix, prefix...)
	w.count++
}

// flush hashes the current border's tasks, if it has any.
func (w *eightfoldDigester) flush() {
	if w.count == 0 {
		return
	}
	w.h.Write(w.head)
	w.h.Write([]byte{byte(w.count), byte(w.count >> 8), byte(w.count >> 16), byte(w.count >> 24)})
	w.h.Write(w.prefix)
	w.count, w.prefix = 0, w.prefix[:0]
}
