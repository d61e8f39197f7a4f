// Package store keeps PURL objects in a filesystem druid tree: object
// bb000kk0000 lives in <root>/bb/000/kk/0000/, whose link current names the
// version directory (v1, v2, …) holding public.xml, mods.xml and the
// object's files (version.go). A write makes a whole new version and then
// switches current to it in one rename, so a reader sees a whole old or a
// whole new object, never a mixture; what a crash leaves behind is removed
// when the store is opened. The store checks nothing about the documents'
// content: callers validate before they write.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// Document names of an object's records.
const (
	PublicXML = "public.xml"
	ModsXML   = "mods.xml"
)

// ErrNotFound is returned (wrapped) when an object or file does not exist.
var ErrNotFound = errors.New("not found")

// Blob is a document or file opened for reading. Info describes exactly the
// bytes that File reads (it is the open file's own stat).
type Blob struct {
	File *os.File
	Info fs.FileInfo
}

// Store is the object store the PURL service reads and publishes to.
type Store interface {
	// Open opens a document (PublicXML, ModsXML) or a file of an object.
	Open(ctx context.Context, id druid.Druid, name string) (Blob, error)
	// Stat describes a document or file without opening it.
	Stat(ctx context.Context, id druid.Druid, name string) (fs.FileInfo, error)
	// Write atomically replaces (or creates) a document or file of an
	// object with the bytes r yields, in a new version holding the current
	// version's other documents and files; created reports whether it was new.
	Write(ctx context.Context, id druid.Druid, name string, r io.Reader) (created bool, err error)
	// Begin starts a new version of an object (see Version): empty, or with
	// keep the current version's documents and files.
	Begin(ctx context.Context, id druid.Druid, keep bool) (Version, error)
	// Current names the object's current version (ErrNotFound when it has
	// none); OpenAt opens a document or file of that version even after
	// another has become current (until the one after), so that a reader
	// can take every part of an object from one version.
	Current(ctx context.Context, id druid.Druid) (string, error)
	OpenAt(ctx context.Context, id druid.Druid, version, name string) (Blob, error)
	// Delete removes an object and everything in it.
	Delete(ctx context.Context, id druid.Druid) error
	// List returns the druids of every object with a public XML record.
	List(ctx context.Context) ([]druid.Druid, error)
}

// FS is the filesystem Store.
type FS struct {
	root string
}

// OpenFS opens (creating it if needed) a store rooted at dir, and removes
// what an interrupted write or delete left behind (version.go).
func OpenFS(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating store %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store path %s: %w", dir, err)
	}
	s := &FS{root: abs}
	if err := s.recover(); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return s, nil
}

// Root is the store's directory.
func (s *FS) Root() string { return s.root }

// objectDir is the directory of an object. A Druid holds only letters and
// digits, so the path cannot leave the tree.
func (s *FS) objectDir(id druid.Druid) string {
	return filepath.Join(s.root, filepath.FromSlash(id.TreePath()))
}

// path is where a document or file of the current version of an object
// lives: through the current link, which the kernel resolves in the same
// call that opens the file. name is checked again here so that no caller
// can reach outside the object's directory.
func (s *FS) path(id druid.Druid, name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	if id == "" {
		return "", fmt.Errorf("%w: empty druid", ErrNotFound)
	}
	return filepath.Join(s.objectDir(id), currentLink, filepath.FromSlash(name)), nil
}

// checkName refuses any name but the records' and a file path that stays
// in the object's folder (record.CheckFilePath: files may be in folders).
func checkName(name string) error {
	if name != PublicXML && name != ModsXML {
		if err := record.CheckFilePath(name); err != nil {
			return fmt.Errorf("%w: %v", ErrNotFound, err)
		}
	}
	return nil
}

// Open implements Store. A reader that resolved current just before two other commits
// (the version it names is then removed) finds nothing there: the open is tried again,
// twice at most, so that only a file that is not in the current version is not found.
func (s *FS) Open(_ context.Context, id druid.Druid, name string) (Blob, error) {
	p, err := s.path(id, name)
	if err != nil {
		return Blob{}, err
	}
	b, err := open(p, id, name)
	for try := 0; try < 2 && errors.Is(err, ErrNotFound); try++ {
		b, err = open(p, id, name)
	}
	return b, err
}

// Current implements Store.
func (s *FS) Current(_ context.Context, id druid.Druid) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: empty druid", ErrNotFound)
	}
	v, err := os.Readlink(filepath.Join(s.objectDir(id), currentLink))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNotFound, id.Qualified())
	}
	if err != nil {
		return "", fmt.Errorf("current version of %s: %w", id.Qualified(), err)
	}
	return v, nil
}

// OpenAt implements Store.
func (s *FS) OpenAt(_ context.Context, id druid.Druid, version, name string) (Blob, error) {
	if err := checkName(name); err != nil {
		return Blob{}, err
	}
	if id == "" || !isVersionName(version) {
		return Blob{}, fmt.Errorf("%w: %s version %q", ErrNotFound, id.Qualified(), version)
	}
	return open(filepath.Join(s.objectDir(id), version, filepath.FromSlash(name)), id, name)
}

func open(p string, id druid.Druid, name string) (Blob, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Blob{}, fmt.Errorf("%w: %s %s", ErrNotFound, id.Qualified(), name)
	}
	if err != nil {
		return Blob{}, fmt.Errorf("opening %s of %s: %w", name, id.Qualified(), err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return Blob{}, fmt.Errorf("stat %s of %s: %w", name, id.Qualified(), err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return Blob{}, fmt.Errorf("%w: %s %s is not a regular file", ErrNotFound, id.Qualified(), name)
	}
	return Blob{File: f, Info: info}, nil
}

// Stat implements Store.
func (s *FS) Stat(_ context.Context, id druid.Druid, name string) (fs.FileInfo, error) {
	p, err := s.path(id, name)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s %s", ErrNotFound, id.Qualified(), name)
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s of %s: %w", name, id.Qualified(), err)
	}
	return info, nil
}

// ReadAll opens a document or file and reads it whole.
func ReadAll(ctx context.Context, s Store, id druid.Druid, name string) ([]byte, fs.FileInfo, error) {
	b, err := s.Open(ctx, id, name)
	if err != nil {
		return nil, nil, err
	}
	return readBlob(b, id, name)
}

// ReadAllAt is ReadAll of a given version (Store.OpenAt).
func ReadAllAt(ctx context.Context, s Store, id druid.Druid, version, name string) ([]byte, fs.FileInfo, error) {
	b, err := s.OpenAt(ctx, id, version, name)
	if err != nil {
		return nil, nil, err
	}
	return readBlob(b, id, name)
}

func readBlob(b Blob, id druid.Druid, name string) ([]byte, fs.FileInfo, error) {
	defer b.File.Close()
	data := make([]byte, b.Info.Size())
	if _, err := io.ReadFull(b.File, data); err != nil {
		return nil, nil, fmt.Errorf("reading %s of %s: %w", name, id.Qualified(), err)
	}
	return data, b.Info, nil
}

// Write implements Store.
func (s *FS) Write(ctx context.Context, id druid.Druid, name string, r io.Reader) (bool, error) {
	if err := checkName(name); err != nil {
		return false, err
	}
	v, err := s.Begin(ctx, id, true)
	if err != nil {
		return false, err
	}
	_, statErr := s.Stat(ctx, id, name)
	if err := v.Write(name, r); err != nil {
		v.Abort()
		return false, err
	}
	if _, err := v.Commit(); err != nil {
		return false, err
	}
	return errors.Is(statErr, ErrNotFound), nil
}

// Delete implements Store. The directory is first renamed out of the tree
// (one atomic step for readers: the object is deleted then), then removed.
// What cannot be removed now (another process opening the store may be
// removing the same trash) is removed when the store is next opened, so it
// does not fail the delete.
func (s *FS) Delete(_ context.Context, id druid.Druid) error {
	dir := s.objectDir(id)
	if _, err := os.Stat(filepath.Join(dir, currentLink, PublicXML)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id.Qualified())
	}
	trash := filepath.Join(s.root, fmt.Sprintf("%s%s-%d", deletedPrefix, id, time.Now().UnixNano()))
	if err := os.Rename(dir, trash); err != nil {
		return fmt.Errorf("deleting %s: %w", id.Qualified(), err)
	}
	_ = os.RemoveAll(trash)
	return nil
}

// List implements Store.
func (s *FS) List(_ context.Context) ([]druid.Druid, error) {
	var ids []druid.Druid
	err := s.walkObjects(func(id druid.Druid, dir string) error {
		if _, err := os.Stat(filepath.Join(dir, currentLink, PublicXML)); err == nil {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing store %s: %w", s.root, err)
	}
	slices.Sort(ids)
	return ids, nil
}

// walkObjects calls fn for the directory of every object in the tree,
// skipping hidden entries (trash, temporary files) and the intermediate
// levels of the druid tree; List and recovery share this one walk.
func (s *FS) walkObjects(fn func(id druid.Druid, dir string) error) error {
	return filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == s.root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return nil
		}
		id, err := druid.Parse(strings.ReplaceAll(filepath.ToSlash(rel), "/", ""))
		if err != nil || id.TreePath() != filepath.ToSlash(rel) {
			return nil // an intermediate level of the tree
		}
		if err := fn(id, p); err != nil {
			return err
		}
		return filepath.SkipDir
	})
}

// Empty reports whether the store holds no object.
func (s *FS) Empty(ctx context.Context) (bool, error) {
	ids, err := s.List(ctx)
	return len(ids) == 0, err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
