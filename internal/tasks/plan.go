package tasks

import (
	"crypto/sha256"
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
// of the batch and their bytes for the hash, and digests what it gives.
func digest(enumerate func(batch func(tasks int, bytes []byte)) error) (Digest, error) {
	var d Digest
	h := sha256.New()
	err := enumerate(func(tasks int, bytes []byte) {
		h.Write(bytes)
		d.Tasks += int64(tasks)
		d.Batches++
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
	var buf []byte
	return digest(func(add func(int, []byte)) error {
		return EnumerateBoards(n, k, depth, batch, func(b *Boards) error {
			buf = buf[:0]
			for _, r := range b.Rows {
				buf = append(buf, byte(bits.TrailingZeros32(r)))
			}
			add(b.Len(), buf)
			return nil
		})
	})
}

// DigestFrames enumerates the carry-chain frames that EnumerateFrames lists
// for the same arguments and digests them. Each frame enters the hash as N
// bytes, one per row (0 for a row the frame leaves empty, else the queen's
// column plus one), then its weight and its half-turn flag.
func DigestFrames(n, batch int) (Digest, error) {
	var buf []byte
	return digest(func(add func(int, []byte)) error {
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
			add(f.Len(), buf)
			return nil
		})
	})
}

// DigestEightfold enumerates the eightfold tasks that EnumerateEightfold
// lists for the same arguments and digests them. Each task enters the hash
// as N bytes, one per row (the column of the queen the task places there,
// NoQueen for a row of the search), then its weight; the words and the
// shape follow from them.
func DigestEightfold(n, split, batch int) (Digest, error) {
	var buf []byte
	return digest(func(add func(int, []byte)) error {
		return EnumerateEightfold(n, split, batch, func(e *Eightfold) error {
			buf = buf[:0]
			for i := 0; i < e.Len(); i++ {
				buf = append(buf, e.Task(i)...)
				buf = append(buf, byte(e.Weight(i)))
			}
			add(e.Len(), buf)
			return nil
		})
	})
}
