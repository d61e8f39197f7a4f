// Package auth holds the bearer tokens that authorise write operations
// (publishing PURL objects, setting hours). Tokens are kept as SHA-256
// hashes in a JSON file; the plaintext is shown once, when it is created.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sitelib/sitesvc/impl/atomicfile"
)

// Roles a token can carry.
const (
	// RoleAdmin may do every write operation.
	RoleAdmin = "admin"
	// RolePublisher may publish and withdraw PURL objects.
	RolePublisher = "publisher"
	// RoleEditorPrefix + a library slug may set that library's hours.
	RoleEditorPrefix = "editor:"
	// RoleGroupPrefix + a group name may read PURL files restricted to that
	// login group (rightsMetadata <group>).
	RoleGroupPrefix = "group:"
	// RoleLocationPrefix + a location name may read PURL files restricted
	// to that location (rightsMetadata <location>).
	RoleLocationPrefix = "location:"
)

var scopedRole = regexp.MustCompile(`^(editor|group|location):[a-z0-9][a-z0-9._-]*$`)

// ValidRole reports whether role is one this package knows: admin,
// publisher, editor:<library>, group:<name> or location:<name>.
func ValidRole(role string) bool {
	return role == RoleAdmin || role == RolePublisher || scopedRole.MatchString(role)
}

// Principal is who sent a request: the holder of a valid token or a
// signed-in person.
type Principal struct {
	Name  string
	Roles []string
	// Via is the credential the edge found the principal by (zero where
	// no edge set it, as in a token file's own look-up).
	Via Credential
}

// Has reports whether p holds role; admin holds every role.
func (p Principal) Has(role string) bool {
	return slices.Contains(p.Roles, RoleAdmin) || slices.Contains(p.Roles, role)
}

// CanPublish reports whether p may write PURL objects.
func (p Principal) CanPublish() bool { return p.Has(RolePublisher) }

// CanEditLibrary reports whether p may set the hours of the library slug.
func (p Principal) CanEditLibrary(slug string) bool { return p.Has(RoleEditorPrefix + slug) }

// IsAdmin reports whether p holds the admin role.
func (p Principal) IsAdmin() bool { return slices.Contains(p.Roles, RoleAdmin) }

type tokenRecord struct {
	Name    string    `json:"name"`
	Roles   []string  `json:"roles"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created"`
}

type tokenFile struct {
	Tokens []tokenRecord `json:"tokens"`
}

// Tokens is a token file. It rereads the file when it changes, so tokens
// added by `sitesvc tokens add` work without a restart.
type Tokens struct {
	path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	info    os.FileInfo
	byHash  map[string]tokenRecord
}

// Open reads the token file at path; a missing file holds no tokens.
func Open(path string) (*Tokens, error) {
	t := &Tokens{path: path}
	if err := t.reload(); err != nil {
		return nil, err
	}
	return t, nil
}

// reload rereads the file if it changed since the last read. The caller
// holds t.mu or has the only reference.
func (t *Tokens) reload() error {
	st, err := os.Stat(t.path)
	if errors.Is(err, os.ErrNotExist) {
		t.byHash, t.modTime, t.size = map[string]tokenRecord{}, time.Time{}, 0
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the token file: %w", err)
	}
	// The file is replaced by rename, so a new file is a new inode even when
	// its time and size happen to match the old one's.
	if t.byHash != nil && t.info != nil && os.SameFile(st, t.info) && st.ModTime().Equal(t.modTime) && st.Size() == t.size {
		return nil
	}
	f, err := t.read()
	if err != nil {
		return err
	}
	byHash := make(map[string]tokenRecord, len(f.Tokens))
	for _, rec := range f.Tokens {
		byHash[rec.SHA256] = rec
	}
	t.byHash, t.modTime, t.size, t.info = byHash, st.ModTime(), st.Size(), st
	return nil
}

func (t *Tokens) read() (tokenFile, error) {
	var f tokenFile
	data, err := os.ReadFile(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the token file: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("token file %s is not a token file (%w): fix or move it", t.path, err)
	}
	return f, nil
}

// Authenticate returns the principal of a plaintext token.
func (t *Tokens) Authenticate(token string) (Principal, bool) {
	if token == "" {
		return Principal{}, false
	}
	sum := sha256.Sum256([]byte(token))
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.reload(); err != nil {
		return Principal{}, false
	}
	rec, ok := t.byHash[hex.EncodeToString(sum[:])]
	if !ok {
		return Principal{}, false
	}
	return Principal{Name: rec.Name, Roles: slices.Clone(rec.Roles)}, true
}

// Add creates a token for name with roles, stores its hash and returns the
// plaintext, which is not kept anywhere.
func (t *Tokens) Add(name string, roles []string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("a token needs a name: give --name (who it is for)")
	}
	if len(roles) == 0 {
		return "", errors.New("a token needs a role: give --role admin, publisher or editor:<library>")
	}
	for _, r := range roles {
		if !ValidRole(r) {
			return "", fmt.Errorf("unknown role %q: use admin, publisher, editor:<library>, group:<name> or location:<name>", r)
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("making a token: %w", err)
	}
	token := "sst_" + base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(token))

	t.mu.Lock()
	defer t.mu.Unlock()
	// Another process (a second `sitesvc tokens add`) may add a token at the
	// same time: the read-modify-write holds an exclusive lock on a file
	// beside the token file, so neither add is lost.
	unlock, err := atomicfile.Lock(t.path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	defer unlock()
	f, err := t.read()
	if err != nil {
		return "", err
	}
	f.Tokens = append(f.Tokens, tokenRecord{Name: name, Roles: roles, SHA256: hex.EncodeToString(sum[:]), Created: time.Now().UTC()})
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encoding the token file: %w", err)
	}
	if err := atomicfile.Write(t.path, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	t.byHash = nil // force a reread
	if err := t.reload(); err != nil {
		return "", err
	}
	return token, nil
}

// BearerToken returns the token of an "Authorization: Bearer …" header.
func BearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
