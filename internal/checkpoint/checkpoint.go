package checkpoint

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

	"github.com/nqueens-gpu/nqueens-gpu/internal/batchset"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
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

type fileJSON struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	BodySHA256    string          `json:"body_sha256"`
	Body          json.RawMessage `json:"body"`
}

// Body is what a checkpoint records.
type Body struct {
	Program     string     `json:"program"`
	Version     string     `json:"version"` // of the program that wrote it
	Job         plan.Plan  `json:"job"`
	Fingerprint string     `json:"fingerprint"`
	Shard       plan.Shard `json:"shard"`
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

// State is a decoded checkpoint: its body and the set of finished
// batches.
type State struct {
	Body Body
	Done batchset.Set
}

// MaxBatches bounds the batches of a job that keeps a checkpoint, and
// with it the size of a checkpoint file. It covers every default job up
// to N=28, the largest N: the symmetry boards of N=28 at the default
// depth 8 (boards28) are under 2^30 batches even in batches of 8, and
// plan.DefaultBatch keeps them under 2^28.
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

// Error is a checkpoint that cannot be used: damaged, made for
// another job, unreadable, read-only or in use by another run. The file
// is left as it was.
type Error struct {
	Path   string
	Reason string
	Err    error // the cause, if any
	// NoFile says that there is no file at Path (its directory is
	// missing, say), so the message does not speak of one.
	NoFile bool
}

func (e *Error) Error() string {
	if e.NoFile {
		return fmt.Sprintf("checkpoint %s %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("checkpoint %s %s; the file was left as it is", e.Path, e.Reason)
}

// noFile reports whether there is nothing at path.
func noFile(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Load reads the checkpoint at path and checks that it is whole
// and consistent. It returns nil, nil when there is no file.
func Load(path string) (*State, error) {
	data, err := fsutil.ReadRegular(path, MaxCheckpointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var nr *fsutil.NotRegularError
	var tl *fsutil.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, &Error{Path: path, Reason: "is " + nr.Kind + ", not a regular file", Err: err}
	case errors.As(err, &tl):
		b28 := (boards28 + int64(plan.DefaultBatch(28)) - 1) / int64(plan.DefaultBatch(28))
		return nil, &Error{Path: path, Err: err, Reason: fmt.Sprintf(
			"is larger than %s, the most a checkpoint can hold (a job of 2^30 batches; N=28 has %d batches at its default depth and batch size, a checkpoint of about %s); it is not a checkpoint",
			fsutil.FormatBytes(tl.Max), b28, fsutil.FormatBytes(checkpointBytes(b28)))}
	case err != nil:
		return nil, &Error{Path: path, Reason: fmt.Sprintf("cannot be read (%v)", err), Err: err}
	}
	bad := func(format string, a ...any) error {
		return &Error{Path: path, Reason: "is damaged or not a checkpoint: " + fmt.Sprintf(format, a...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, bad("it is empty (%d bytes)", len(data))
	}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, bad("%s", jsonProblem(data, err))
	}
	if f.Format != checkpointFormat {
		return nil, bad("its format is %s, not %q", clip.Quote(f.Format, clip.Max), checkpointFormat)
	}
	if f.FormatVersion != checkpointVersion {
		return nil, &Error{Path: path, Reason: fmt.Sprintf(
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
	var c State
	dec := json.NewDecoder(bytes.NewReader(compact.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.Body); err != nil {
		return nil, bad("%s", clip.String(err.Error(), 200))
	}
	b := &c.Body
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
	c.Done = batchset.FromBytes(raw)
	if c.Done.Max() >= b.Job.Batches {
		return nil, bad("batch %d is marked done but the job has %d batches", c.Done.Max(), b.Job.Batches)
	}
	if n := c.Done.Count(); n != b.DoneBatches {
		return nil, bad("%d batches are marked done but done_batches says %d", n, b.DoneBatches)
	}
	if fp := b.Job.Fingerprint(); b.Fingerprint != fp {
		return nil, bad("its fingerprint does not match its job (%s)", plan.ShowDiff(b.Fingerprint, fp))
	}
	if b.Shard.Count < 0 || (!b.Shard.Whole() && (b.Shard.Index < 0 || b.Shard.Index >= b.Shard.Count)) {
		return nil, bad("shard %d/%d", b.Shard.Index, b.Shard.Count)
	}
	for i := 0; i < b.Job.Batches; i++ {
		if c.Done.Has(i) && !b.Shard.Has(i) {
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

// Encode writes c as the bytes of a checkpoint file: the body
// compact for its checksum, indented in the file (encodePlain).
// The done set, 16 MB of base64 at N=26, is put into both after the JSON
// encoding, where its mark stands: encoding it with the rest costs 3 more
// passes over it (json.MarshalIndent alone took 110 of the 180 ms of an
// encoding at N=26), and a stopped run must save within its 2 s. Base64
// needs no JSON escaping, so the bytes are those of the plain encoding;
// where a string of the body holds the mark itself, it is that.
func Encode(c *State) ([]byte, error) {
	raw := c.Done.Bytes(c.Body.Job.Batches)
	done := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(done, raw)
	c.Body.Done = doneMark
	body, err := json.Marshal(&c.Body)
	c.Body.Done = ""
	if err != nil {
		return nil, err
	}
	mark := []byte(`"` + doneMark + `"`)
	if bytes.Count(body, mark) != 1 {
		return encodePlain(c)
	}
	i := bytes.Index(body, mark)
	h := sha256.New()
	h.Write(body[:i+1]) // up to the opening quote
	h.Write(done)
	h.Write(body[i+len(mark)-1:]) // from the closing quote
	out, err := json.MarshalIndent(fileJSON{
		Format:        checkpointFormat,
		FormatVersion: checkpointVersion,
		BodySHA256:    hex.EncodeToString(h.Sum(nil)),
		Body:          body,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	if bytes.Count(out, mark) != 1 {
		return encodePlain(c)
	}
	i = bytes.Index(out, mark)
	file := make([]byte, 0, len(out)+len(done)+1)
	file = append(file, out[:i+1]...)
	file = append(file, done...)
	file = append(file, out[i+len(mark)-1:]...)
	return append(file, '\n'), nil
}

// doneMark stands for the done set in the JSON that Encode
// makes.
const doneMark = "nqueens-gpu: the done set goes here"

// encodePlain is Encode with the done set encoded
// with the rest.
func encodePlain(c *State) ([]byte, error) {
	c.Body.Done = base64.StdEncoding.EncodeToString(c.Done.Bytes(c.Body.Job.Batches))
	body, err := json.Marshal(&c.Body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	out, err := json.MarshalIndent(fileJSON{
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

// CheckFile checks, without changing anything, that the
// checkpoint file at path can be replaced the way the job writes it
// (fsutil.CheckWritable: through its links, keeping its mode and owner):
// a read-only file, a FIFO, a device or a directory in its place, or a
// directory that does not let it be replaced is a *Error. New
// checks it again under the checkpoint's lock; a program calls it first
// to refuse such a file before it opens its devices.
func CheckFile(path string) error {
	var ro *fsutil.ReadOnlyError
	err := fsutil.CheckWritable(path)
	switch {
	case errors.As(err, &ro):
		return &Error{Path: path, Err: err, Reason: fmt.Sprintf(
			"is read-only (mode %04o): make it writable to go on with it (chmod u+w), or copy it", uint32(ro.Perm))}
	case fsutil.IsNotRegular(err):
		var nr *fsutil.NotRegularError
		errors.As(err, &nr)
		return &Error{Path: path, Err: err, Reason: "is " + nr.Kind + ", not a regular file"}
	case err != nil:
		return &Error{Path: path, Err: err, Reason: "cannot be written: " + err.Error(), NoFile: noFile(path)}
	}
	return nil
}

// Write replaces the checkpoint at path with c atomically
// (fsutil.WriteAtomic): a run killed while writing leaves the file before.
func Write(path string, c *State) error {
	data, err := Encode(c)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, data, 0o666)
}

// Lock takes the lock of the checkpoint at path, checks that the file can
// be replaced (CheckFile) and removes the temporary files that a run
// killed while writing it left behind, telling warn (if not nil) about
// them. A lock held by another run, or a file that cannot be replaced, is
// an *Error. The caller releases the lock.
func Lock(path string, warn func(string)) (*fsutil.Lock, error) {
	l, err := fsutil.TryLock(path)
	var held *fsutil.HeldError
	switch {
	case errors.As(err, &held):
		return nil, &Error{Path: path, Err: err, Reason: fmt.Sprintf(
			"is in use by %s (lock file %s); wait for that run to end or stop it", holder(held), held.File)}
	case err != nil:
		return nil, &Error{Path: path, Err: err, Reason: "cannot be locked: " + err.Error(), NoFile: noFile(path)}
	}
	if err := CheckFile(path); err != nil {
		l.Release()
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	removed, err := fsutil.RemoveStaleTemps(path)
	if len(removed) > 0 {
		warn(fmt.Sprintf("removed %d temporary file(s) of checkpoint %s left by a run that was killed while writing it", len(removed), path))
	}
	if err != nil {
		warn(fmt.Sprintf("could not remove the temporary files of checkpoint %s left by a killed run: %v", path, err))
	}
	return l, nil
}

// holder names the run that holds a lock, for messages.
func holder(held *fsutil.HeldError) string {
	if held.PID <= 0 {
		return "another run"
	}
	who := fmt.Sprintf("another run, PID %d", held.PID)
	if held.Host != "" {
		if h, _ := os.Hostname(); h != held.Host {
			who += " on " + held.Host
		}
	}
	return who
}
