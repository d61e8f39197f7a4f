package algorithm

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sitelib/sitesvc/impl/atomicfile"
)

// Key files hold one key per line: the hex SHA-256 of the key, then
// optionally whitespace and a label. Blank lines and lines starting with #
// are ignored. The keys themselves are never stored (except the
// development key, written on purpose to <data>/dev-key.txt in development
// mode). The development key's line carries DevKeyLabel; outside
// development mode such a line is not a valid key, so a data directory once
// run with --dev never lets that key into production.

// DevKeyLabel marks the development key's line in a key file.
const DevKeyLabel = "development key (created by the embedded default)"

// NewKey returns a fresh random API key (32 URL-safe characters).
func NewKey() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a key: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// HashKey is the key-file form of key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// AddKey creates a key, appends its hash (with label) to the key file —
// creating the file and its directory when needed — and returns the key.
// The file is rewritten atomically (temp file + rename), mode 0600.
func AddKey(keysFile, label string) (string, error) {
	if strings.ContainsAny(label, "\r\n") {
		return "", fmt.Errorf("key label must be one line")
	}
	if isDevLabel(label) {
		return "", fmt.Errorf("the label %q is reserved for the development key: choose another --label", DevKeyLabel)
	}
	return addKey(keysFile, label)
}

func isDevLabel(label string) bool { return strings.TrimSpace(label) == DevKeyLabel }

func addKey(keysFile, label string) (string, error) {
	key, err := NewKey()
	if err != nil {
		return "", err
	}
	// Two `sitesvc keys add` at once must not lose a key: the
	// read-modify-write holds an exclusive lock beside the key file.
	unlock, err := atomicfile.Lock(keysFile)
	if err != nil {
		return "", fmt.Errorf("key file: %w", err)
	}
	defer unlock()
	old, err := os.ReadFile(keysFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("reading key file: %w", err)
	}
	if _, err := parseKeyFile(old, true); err != nil {
		return "", fmt.Errorf("key file %s: %w", keysFile, err)
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(HashKey(key))
	if label = strings.TrimSpace(label); label != "" {
		b.WriteString(" " + label)
	}
	b.WriteByte('\n')
	if err := atomicfile.Write(keysFile, b.Bytes(), 0o600); err != nil {
		return "", fmt.Errorf("writing key file: %w", err)
	}
	return key, nil
}

// EnsureDevKey is development mode's start: unless devKeyFile already
// holds a key that keysFile lists as the development key, it creates one,
// stores its hash in keysFile (label DevKeyLabel, the file and its
// directory created when needed) and the key itself in devKeyFile (mode
// 0600), and returns it with created=true. The caller shows a created key
// once; it is never shown again.
func EnsureDevKey(keysFile, devKeyFile string) (key string, created bool, err error) {
	if raw, err := os.ReadFile(devKeyFile); err == nil {
		key := strings.TrimSpace(string(raw))
		data, err := os.ReadFile(keysFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("key file: %w", err)
		}
		if key != "" && hasDevKey(data, HashKey(key)) {
			return key, false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("development key: %w", err)
	}
	key, err = addKey(keysFile, DevKeyLabel)
	if err != nil {
		return "", false, err
	}
	if err := atomicfile.Write(devKeyFile, []byte(key+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("writing the development key: %w", err)
	}
	return key, true, nil
}

// hasDevKey reports whether the key file data lists hash as the
// development key.
func hasDevKey(data []byte, hash string) bool {
	for _, line := range strings.Split(string(data), "\n") {
		field, label, _ := strings.Cut(strings.TrimSpace(line), " ")
		if field == hash && isDevLabel(label) {
			return true
		}
	}
	return false
}

// parseKeyFile returns the set of key hashes (raw SHA-256 sums), the
// development key's only when allowDev.
func parseKeyFile(data []byte, allowDev bool) (map[[sha256.Size]byte]struct{}, error) {
	set := map[[sha256.Size]byte]struct{}{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		field, label, _ := strings.Cut(text, " ")
		field, tabLabel, tab := strings.Cut(field, "\t")
		if tab {
			label = tabLabel + " " + label
		}
		raw, err := hex.DecodeString(field)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("line %d: %q is not a hex SHA-256 hash", line, clip(field))
		}
		if !allowDev && isDevLabel(label) {
			continue
		}
		set[[sha256.Size]byte(raw)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return set, nil
}

// keyStore checks keys against the key file, re-reading it when it
// changes so that `sitesvc keys add` takes effect without a restart.
type keyStore struct {
	path     string
	recheck  time.Duration // how often the file's metadata is looked at
	allowDev bool          // development mode: the development key is valid
	// missingAtStart: there was no key file at start, which is no keys
	// (not an error) until one is made; a file that vanishes later is.
	missingAtStart bool

	mu      sync.Mutex
	hashes  map[[sha256.Size]byte]struct{}
	modTime time.Time
	size    int64
	checked time.Time
	lastErr error
}

// keyRecheck is how often the key file's metadata is looked at.
const keyRecheck = time.Second

func newKeyStore(path string, allowDev bool) (*keyStore, error) {
	k := &keyStore{path: path, recheck: keyRecheck, allowDev: allowDev}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		k.missingAtStart = true
		k.hashes = map[[sha256.Size]byte]struct{}{}
		k.checked = time.Now()
		return k, nil
	}
	if err := k.reload(time.Now()); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *keyStore) reload(now time.Time) error {
	k.checked = now
	st, err := os.Stat(k.path)
	if err != nil {
		if k.missingAtStart && errors.Is(err, fs.ErrNotExist) {
			return nil // still no key file: still no keys
		}
		return fmt.Errorf("key file: %w", err)
	}
	k.missingAtStart = false
	if k.hashes != nil && st.ModTime().Equal(k.modTime) && st.Size() == k.size {
		return nil
	}
	data, err := os.ReadFile(k.path)
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	set, err := parseKeyFile(data, k.allowDev)
	if err != nil {
		return fmt.Errorf("key file %s: %w", k.path, err)
	}
	k.hashes, k.modTime, k.size = set, st.ModTime(), st.Size()
	return nil
}

// valid reports whether key is in the key file. A key file that became
// unreadable keeps the last good set (the error is kept for Ready).
func (k *keyStore) valid(key string) bool {
	sum := sha256.Sum256([]byte(key))
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refresh()
	_, ok := k.hashes[sum]
	return ok
}

// refresh re-reads the key file when it is time to look again; k.mu is held.
func (k *keyStore) refresh() {
	if now := time.Now(); now.Sub(k.checked) >= k.recheck {
		k.lastErr = k.reload(now)
	}
}

// err is the problem with the key file, if any (for readiness).
func (k *keyStore) err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refresh()
	return k.lastErr
}

func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
