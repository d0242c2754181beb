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
	"path/filepath"
	"time"

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

// CheckpointError is a checkpoint that cannot be used: damaged, made for
// another job, or unreadable. The file is left as it was.
type CheckpointError struct {
	Path   string
	Reason string
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("checkpoint %s %s; the file was left as it is", e.Path, e.Reason)
}

// loadCheckpoint reads the checkpoint at path and checks that it is whole
// and consistent. It returns nil, nil when there is no file.
func loadCheckpoint(path string) (*checkpoint, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &CheckpointError{path, fmt.Sprintf("cannot be read (%v)", err)}
	}
	bad := func(format string, a ...any) error {
		return &CheckpointError{path, "is damaged or not a checkpoint: " + fmt.Sprintf(format, a...)}
	}
	var f checkpointFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, bad("%v (a truncated file looks like this)", err)
	}
	if f.Format != checkpointFormat {
		return nil, bad("its format is %q, not %q", f.Format, checkpointFormat)
	}
	if f.FormatVersion != checkpointVersion {
		return nil, &CheckpointError{path, fmt.Sprintf("has format version %d, which this program (version %d) does not read", f.FormatVersion, checkpointVersion)}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, f.Body); err != nil || len(f.Body) == 0 {
		return nil, bad("no body")
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != f.BodySHA256 {
		return nil, bad("its checksum does not match its contents")
	}
	var c checkpoint
	dec := json.NewDecoder(bytes.NewReader(compact.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.body); err != nil {
		return nil, bad("%v", err)
	}
	b := &c.body
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
	if b.Fingerprint != b.Job.Fingerprint() {
		return nil, bad("its fingerprint does not match its job")
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

// encodeCheckpoint writes c as the bytes of a checkpoint file.
func encodeCheckpoint(c *checkpoint) ([]byte, error) {
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

// writeFileAtomic replaces path with data so that path holds either its
// old or its new contents whatever happens: it writes a temporary file in
// the same directory, syncs it, renames it over path and syncs the
// directory. A stale temporary file of an earlier crash is overwritten
// by name pattern only when the next write succeeds.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable once the directory is synced. Some file
	// systems cannot sync a directory; the data itself is already safe.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
