package job

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// A checkpoint file is a JSON document:
//
//	{
//	  "format": "nqueens-gpu checkpoint",
//	  "format_version": 1,
//	  "body_sha256": "<hex SHA-256 of the body in compact form>",
//	  "body": { ... }
//	}
//
// The checksum covers the body as json.Compact writes it, so the file may be
// re-indented but not otherwise changed; a truncated or damaged file fails
// either the JSON parse or the checksum.
const (
	checkpointFormat  = "nqueens-gpu checkpoint"
	checkpointVersion = 1
)

type checkpointFile struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	BodySHA256    string          `json:"body_sha256"`
	Body          json.RawMessage `json:"body"`
}

// checkpointBody is what a checkpoint records.
type checkpointBody struct {
	Program     string `json:"program"`
	Version     string `json:"version"` // of the program that wrote it
	Job         Plan   `json:"job"`
	Fingerprint string `json:"fingerprint"`
	Shard       Shard  `json:"shard"`
	// Complete is set when every batch of the shard is done.
	Complete bool `json:"complete"`
	// DoneBatches is the number of finished batches, Done their set as
	// base64 of a bitmap (bit i%8 of byte i/8 for batch i) and Partial the
	// sum of their partials (see nq.Partial).
	DoneBatches int        `json:"done_batches"`
	Done        string     `json:"done"`
	Partial     nq.Partial `json:"partial"`
	// Seconds adds up the wall-clock time of every run that worked on the
	// job; Runs counts them.
	Seconds float64   `json:"seconds"`
	Runs    int       `json:"runs"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Command is the command line of the last run, for reference.
	Command []string `json:"command,omitempty"`
}

// checkpoint is a decoded checkpoint.
type checkpoint struct {
	body checkpointBody
	done bitset
}

// MaxBatches bounds the batches of a job that keeps a checkpoint, and
// with it the size of a checkpoint file. It covers every default job up
// to N=28, the largest N: the symmetry boards of N=28 at the default
// depth 8 (boards28) are under 2^30 batches even in batches of 8, and
// nq.DefaultBatch keeps them under 2^28.
const MaxBatches = 1 << 30

// boards28 is the number of symmetry boards of N=28 at its default depth
// 8, as tasks.EnumerateBoards lists them: the task count of the largest
// default job.
const boards28 = 5_147_588_551

// checkpointBytes is about the size of a checkpoint of a job of batches
// batches: the base64 of its bitmap and about 2 KiB of the rest.
func checkpointBytes(batches int64) int64 { return (batches/8+2)/3*4 + 2048 }

// MaxCheckpointBytes is the most a checkpoint file can hold: the bitmap
// of MaxBatches batches in base64 (171 MiB, for a job of N=28 cut into the
// smallest batches) and 4 MiB for the rest, the command line included. A
// longer file is refused without being read to its end.
const MaxCheckpointBytes = (MaxBatches/8+2)/3*4 + 4<<20

// CheckpointError is a checkpoint that cannot be used: damaged, made for
// another job, unreadable, read-only or in use by another run. The file
// is left as it was.
type CheckpointError struct {
	Path   string
	Reason string
	Err    error // the cause, if any
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("checkpoint %s %s; the file was left as it is", e.Path, e.Reason)
}

// Unwrap returns the cause.
func (e *CheckpointError) Unwrap() error { return e.Err }

// loadCheckpoint reads the checkpoint at path and checks that it is whole
// and consistent. It returns nil, nil when there is no file.
func loadCheckpoint(path string) (*checkpoint, error) {
	data, err := fsutil.ReadRegular(path, MaxCheckpointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var nr *fsutil.NotRegularError
	var tl *fsutil.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, &CheckpointError{Path: path, Reason: "is " + nr.Kind + ", not a regular file", Err: err}
	case errors.As(err, &tl):
		b28 := (boards28 + int64(nq.DefaultBatch(28)) - 1) / int64(nq.DefaultBatch(28))
		return nil, &CheckpointError{Path: path, Err: err, Reason: fmt.Sprintf(
			"is larger than %s, the most a checkpoint can hold (a job of 2^30 batches; N=28 has %d batches at its default depth and batch size, a checkpoint of about %s); it is not a checkpoint",
			fsutil.FormatBytes(tl.Max), b28, fsutil.FormatBytes(checkpointBytes(b28)))}
	case err != nil:
		return nil, &CheckpointError{Path: path, Reason: fmt.Sprintf("cannot be read (%v)", err), Err: err}
	}
	bad := func(format string, a ...any) error {
		return &CheckpointError{Path: path, Reason: "is damaged or not a checkpoint: " + fmt.Sprintf(format, a...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, bad("it is empty (%d bytes)", len(data))
	}
	var f checkpointFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, bad("%s", jsonProblem(data, err))
	}
	if f.Format != checkpointFormat {
		return nil, bad("its format is %s, not %q", clip.Quote(f.Format, clip.Max), checkpointFormat)
	}
	if f.FormatVersion != checkpointVersion {
		return nil, &CheckpointError{Path: path, Reason: fmt.Sprintf(
			"has format version %d, which this program (version %d) does not read (or the file was changed)", f.FormatVersion, checkpointVersion)}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, f.Body); err != nil || len(f.Body) == 0 {
		return nil, bad("no body")
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != f.BodySHA256 {
		return nil, bad("its checksum does not match its contents, so it was changed after it was written (a flipped byte looks like this)")
	}
	var c checkpoint
	dec := json.NewDecoder(bytes.NewReader(compact.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.body); err != nil {
		return nil, bad("%s", clip.String(err.Error(), 200))
	}
	b := &c.body
	if b.Job.Batches > MaxBatches {
		return nil, bad("its job has %d batches, more than the %d a checkpoint can hold", b.Job.Batches, MaxBatches)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Done)
	if err != nil {
		return nil, bad("the set of finished batches does not decode (%v)", err)
	}
	if b.Job.Batches < 1 || len(raw) != (b.Job.Batches+7)/8 {
		return nil, bad("the set of finished batches has %d bytes for %d batches", len(raw), b.Job.Batches)
	}
	c.done = bitsetFrom(raw)
	if c.done.max() >= b.Job.Batches {
		return nil, bad("batch %d is marked done but the job has %d batches", c.done.max(), b.Job.Batches)
	}
	if n := c.done.count(); n != b.DoneBatches {
		return nil, bad("%d batches are marked done but done_batches says %d", n, b.DoneBatches)
	}
	if fp := b.Job.Fingerprint(); b.Fingerprint != fp {
		return nil, bad("its fingerprint does not match its job (%s)", ShowDiff(b.Fingerprint, fp))
	}
	if b.Shard.Count < 0 || (!b.Shard.Whole() && (b.Shard.Index < 0 || b.Shard.Index >= b.Shard.Count)) {
		return nil, bad("shard %d/%d", b.Shard.Index, b.Shard.Count)
	}
	for i := 0; i < b.Job.Batches; i++ {
		if c.done.has(i) && !b.Shard.Has(i) {
			return nil, bad("batch %d is done but not in shard %v", i, b.Shard)
		}
	}
	if b.Complete && b.DoneBatches != b.Shard.Batches(b.Job.Batches) {
		return nil, bad("it is marked complete with %d of %d batches done", b.DoneBatches, b.Shard.Batches(b.Job.Batches))
	}
	return &c, nil
}

// jsonProblem says in words what is wrong with data, which json.Unmarshal
// refused with err: cut short (a write that did not finish), a byte that
// is not JSON where it stands (a changed byte, or another kind of file),
// or a value of the wrong type.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))):
		return fmt.Sprintf("it is truncated: its JSON stops short at byte %d, the end of the file", len(data))
	case errors.As(err, &se):
		at := max(se.Offset-1, 0)
		return fmt.Sprintf("byte %d (%s) is not valid JSON there: a byte was changed, or it is another kind of file (%s)",
			at+1, clip.Quote(string(data[at:min(at+1, int64(len(data)))]), 8), clip.String(se.Error(), 100))
	case errors.As(err, &te):
		return fmt.Sprintf("the field %s holds a JSON %s, not what a checkpoint has there", clip.Quote(te.Field, 60), te.Value)
	}
	return clip.String(err.Error(), 200)
}

// encodeCheckpoint writes c as the bytes of a checkpoint file: the body
// compact for its checksum, indented in the file (encodeCheckpointPlain).
// The done set, 16 MB of base64 at N=26, is put into both after the JSON
// encoding, where its mark stands: encoding it with the rest costs 3 more
// passes over it (json.MarshalIndent alone took 110 of the 180 ms of an
// encoding at N=26), and a stopped run must save within its 2 s. Base64
// needs no JSON escaping, so the bytes are those of the plain encoding;
// where a string of the body holds the mark itself, it is that.
func encodeCheckpoint(c *checkpoint) ([]byte, error) {
	raw := c.done.bytes(c.body.Job.Batches)
	done := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(done, raw)
	c.body.Done = doneMark
	body, err := json.Marshal(&c.body)
	c.body.Done = ""
	if err != nil {
		return nil, err
	}
	mark := []byte(`"` + doneMark + `"`)
	if bytes.Count(body, mark) != 1 {
		return encodeCheckpointPlain(c)
	}
	i := bytes.Index(body, mark)
	h := sha256.New()
	h.Write(body[:i+1]) // up to the opening quote
	h.Write(done)
	h.Write(body[i+len(mark)-1:]) // from the closing quote
	out, err := json.MarshalIndent(checkpointFile{
		Format:        checkpointFormat,
		FormatVersion: checkpointVersion,
		BodySHA256:    hex.EncodeToString(h.Sum(nil)),
		Body:          body,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	if bytes.Count(out, mark) != 1 {
		return encodeCheckpointPlain(c)
	}
	i = bytes.Index(out, mark)
	file := make([]byte, 0, len(out)+len(done)+1)
	file = append(file, out[:i+1]...)
	file = append(file, done...)
	file = append(file, out[i+len(mark)-1:]...)
	return append(file, '\n'), nil
}

// doneMark stands for the done set in the JSON that encodeCheckpoint
// makes.
const doneMark = "nqueens-gpu: the done set goes here"

// encodeCheckpointPlain is encodeCheckpoint with the done set encoded
// with the rest.
func encodeCheckpointPlain(c *checkpoint) ([]byte, error) {
	c.body.Done = base64.StdEncoding.EncodeToString(c.done.bytes(c.body.Job.Batches))
	body, err := json.Marshal(&c.body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	out, err := json.MarshalIndent(checkpointFile{
		Format:        checkpointFormat,
		FormatVersion: checkpointVersion,
		BodySHA256:    hex.EncodeToString(sum[:]),
		Body:          body,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// CheckCheckpointFile checks, without changing anything, that the
// checkpoint file at path can be replaced the way the job writes it
// (fsutil.CheckWritable: through its links, keeping its mode and owner):
// a read-only file, a FIFO, a device or a directory in its place, or a
// directory that does not let it be replaced is a *CheckpointError. New
// checks it again under the checkpoint's lock; a program calls it first
// to refuse such a file before it opens its devices.
func CheckCheckpointFile(path string) error {
	var ro *fsutil.ReadOnlyError
	err := fsutil.CheckWritable(path)
	switch {
	case errors.As(err, &ro):
		return &CheckpointError{Path: path, Err: err, Reason: fmt.Sprintf(
			"is read-only (mode %04o): make it writable to go on with it (chmod u+w), or copy it", uint32(ro.Perm))}
	case fsutil.IsNotRegular(err):
		var nr *fsutil.NotRegularError
		errors.As(err, &nr)
		return &CheckpointError{Path: path, Err: err, Reason: "is " + nr.Kind + ", not a regular file"}
	case err != nil:
		return &CheckpointError{Path: path, Err: err, Reason: "cannot be written: " + err.Error()}
	}
	return nil
}

// lockCheckpoint takes the lock of the job's checkpoint file, checks that
// the file can be replaced (it exists and is read-only, or its directory
// does not let it be replaced keeping its owner: refused), and removes
// the temporary files that a run killed while writing it left behind.
func (j *Job) lockCheckpoint() error {
	path := j.cfg.Checkpoint
	l, err := fsutil.TryLock(path)
	var held *fsutil.HeldError
	switch {
	case errors.As(err, &held):
		who := "another run"
		if held.PID > 0 {
			who = fmt.Sprintf("another run, PID %d", held.PID)
			if held.Host != "" {
				if h, _ := os.Hostname(); h != held.Host {
					who += " on " + held.Host
				}
			}
		}
		return &CheckpointError{Path: path, Err: err, Reason: fmt.Sprintf(
			"is in use by %s (lock file %s); wait for that run to end or stop it", who, held.File)}
	case err != nil:
		return &CheckpointError{Path: path, Err: err, Reason: "cannot be locked: " + err.Error()}
	}
	j.lock = l
	if err := CheckCheckpointFile(path); err != nil {
		j.Close()
		return err
	}
	removed, err := fsutil.RemoveStaleTemps(path)
	if len(removed) > 0 && j.cfg.Warn != nil {
		j.cfg.Warn(fmt.Sprintf("removed %d temporary file(s) of checkpoint %s left by a run that was killed while writing it", len(removed), path))
	}
	if err != nil && j.cfg.Warn != nil {
		j.cfg.Warn(fmt.Sprintf("could not remove the temporary files of checkpoint %s left by a killed run: %v", path, err))
	}
	return nil
}

// Close releases the lock on the checkpoint file, if the job holds it.
// Run releases it as it returns; Close is for a job that is not run. It
// may be called more than once.
func (j *Job) Close() error {
	j.mu.Lock()
	l := j.lock
	j.lock = nil
	j.mu.Unlock()
	return l.Release()
}
