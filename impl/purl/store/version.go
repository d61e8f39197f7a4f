package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// Layout of an object directory (bb/000/kk/0000/):
//
//	current -> v7        the one pointer readers follow (a relative symbolic link)
//	v7/                  the current version: public.xml, mods.xml and the files
//	v6/                  the version it replaced, kept until the next switch so that a
//	                     reader that resolved its path a moment ago still finds it
//	.new-<random>/       a version being written; never served, removed at start
//	.lock                the object's lock (below)
//
// A version being written holds an exclusive flock on its own .lock file from Begin until
// current points at it (or it is abandoned); the lock dies with its process, kill -9 included.
// Cleaning up (at open, and after each commit) removes a directory only when no live process
// holds its lock, so a serving process and `sitesvc purl publish` can write the same store: one
// never removes what the other is writing.
//
// The object's own .lock orders what several processes do to its versions: a commit (number,
// switch, removal of old versions) and recovery hold it exclusively, so a cleaner never
// removes a version that became current after it looked; starting a version from the current
// one holds it shared while it links the files, so that version is not removed under it. It is
// held for file-system steps only, never while a document is written.
//
// A version directory is complete before current points at it, and current is switched by
// renaming a new link over it, so a reader sees exactly one whole version at any instant.
// Files a new version shares with the current one are hard links, not copies.
const (
	currentLink   = "current"
	versionPrefix = "v"
	newPrefix     = ".new-"
	tmpPrefix     = ".tmp-"
	deletedPrefix = ".deleted-"
	lockName      = ".lock"
	// unlockedGrace is how long a .new-* directory without a lock file is left alone: the
	// moment between creating it and locking it.
	unlockedGrace = time.Minute
)

// Leftover reports whether name, an entry of an object's directory, is
// something only an interrupted write leaves there (a version being written,
// a temporary link); the object's lock, current and its versions are not.
func Leftover(name string) bool {
	return strings.HasPrefix(name, ".") && name != lockName
}

// Version is a new version of an object being written: nothing of it is visible until
// Commit switches the object to it. Abort (or a crash) leaves the current version as it was.
type Version interface {
	// Write adds (or replaces) a document or file of the new version.
	Write(name string, r io.Reader) error
	// Commit makes the new version the object's current one; created reports whether the
	// object had no public XML record before.
	Commit() (created bool, err error)
	// Abort discards the new version; after Commit it does nothing.
	Abort()
}

// fsVersion is the FS store's Version.
type fsVersion struct {
	s    *FS
	id   druid.Druid
	obj  string // object directory
	dir  string // .new-… directory
	lock *os.File
	done bool
}

// Begin starts a new version of id. With keep, the new version starts as a copy (hard links)
// of the current one, for writes that replace one document; without, it starts empty, for
// publishing a whole object.
func (s *FS) Begin(_ context.Context, id druid.Druid, keep bool) (Version, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: empty druid", ErrNotFound)
	}
	obj := s.objectDir(id)
	if err := os.MkdirAll(obj, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", obj, err)
	}
	// The directory names its writer's process id, so that one killed between making it and
	// locking it is known to be dead at once (inUse) rather than after a grace period.
	dir, err := os.MkdirTemp(obj, newPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("starting a version of %s: %w", id.Qualified(), err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting a version of %s: %w", id.Qualified(), err)
	}
	v := &fsVersion{s: s, id: id, obj: obj, dir: dir, lock: lock}
	if !keep {
		return v, nil
	}
	unlock, err := lockObject(obj, syscall.LOCK_SH)
	if err != nil {
		v.Abort()
		return nil, fmt.Errorf("starting a version of %s: %w", id.Qualified(), err)
	}
	defer unlock()
	if cur, err := os.Readlink(filepath.Join(obj, currentLink)); err == nil {
		// the version current names now, resolved once: another commit may switch it;
		// files in folders are linked in folders of the same names
		src := filepath.Join(obj, cur)
		err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == src && errors.Is(err, fs.ErrNotExist) {
					return filepath.SkipDir
				}
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil || rel == "." {
				return err
			}
			switch {
			case strings.HasPrefix(e.Name(), "."): // the lock, never a file of the object
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			case e.IsDir():
				return os.Mkdir(filepath.Join(dir, rel), 0o755)
			case !e.Type().IsRegular():
				return nil
			}
			return linkOrCopy(p, filepath.Join(dir, rel))
		})
		if err != nil {
			v.Abort()
			return nil, fmt.Errorf("starting a version of %s: %w", id.Qualified(), err)
		}
	}
	return v, nil
}

// linkOrCopy makes dst a hard link of src (files are never changed in place, so versions
// can share them), or a copy where the filesystem has no hard links.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Write implements Version.
func (v *fsVersion) Write(name string, r io.Reader) error {
	if err := checkName(name); err != nil {
		return err
	}
	p := filepath.Join(v.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing %s of %s: %w", name, v.id.Qualified(), err)
	}
	// A new file, never one shared (hard-linked) with the current version.
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing %s of %s: %w", name, v.id.Qualified(), err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s of %s: %w", name, v.id.Qualified(), err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("writing %s of %s: %w", name, v.id.Qualified(), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("syncing %s of %s: %w", name, v.id.Qualified(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s of %s: %w", name, v.id.Qualified(), err)
	}
	return nil
}

// Commit implements Version.
func (v *fsVersion) Commit() (bool, error) {
	if v.done {
		return false, errors.New("store: version already committed or aborted")
	}
	syncDir(v.dir)
	unlock, err := lockObject(v.obj, syscall.LOCK_EX)
	if err != nil {
		v.Abort()
		return false, fmt.Errorf("committing a version of %s: %w", v.id.Qualified(), err)
	}
	defer unlock()
	return v.commitLocked()
}

// commitLocked is Commit with the object's lock held exclusively.
func (v *fsVersion) commitLocked() (bool, error) {
	cur, _ := os.Readlink(filepath.Join(v.obj, currentLink))
	_, statErr := os.Stat(filepath.Join(v.obj, currentLink, PublicXML))
	created := errors.Is(statErr, fs.ErrNotExist)
	n, _ := strconv.Atoi(strings.TrimPrefix(cur, versionPrefix))
	// The next free version number: a version left by a committer that died may hold it.
	var name string
	for {
		n++
		name = versionPrefix + strconv.Itoa(n)
		err := os.Rename(v.dir, filepath.Join(v.obj, name))
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) && !isNotEmpty(err) {
			v.Abort()
			return false, fmt.Errorf("committing a version of %s: %w", v.id.Qualified(), err)
		}
	}
	v.done = true
	dir := filepath.Join(v.obj, name)
	if err := switchCurrent(v.obj, name); err != nil {
		os.RemoveAll(dir)
		v.lock.Close()
		return false, fmt.Errorf("committing a version of %s: %w", v.id.Qualified(), err)
	}
	os.Remove(filepath.Join(dir, lockName))
	v.lock.Close()
	// Keep the version just replaced (readers may hold its path); remove older ones.
	removeVersions(v.obj, name, cur)
	return created, nil
}

// Abort implements Version.
func (v *fsVersion) Abort() {
	if v.done {
		return
	}
	v.done = true
	os.RemoveAll(v.dir)
	v.lock.Close()
}

// lockDir creates dir/.lock, exclusively flocked. The file is made and locked under another
// name and then renamed: a cleaner that finds dir/.lock always finds it held (had it found an
// unheld one, it would take the directory for a dead writer's, and its probe would make this
// lock fail).
func lockDir(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, lockName+tmpPrefix+randomSuffix())
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return f, nil
}

// lockObject takes the object directory's own lock (obj/.lock), shared (syscall.LOCK_SH) or
// exclusive (syscall.LOCK_EX), waiting for it; unlock releases it.
func lockObject(obj string, how int) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(obj, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", obj, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", obj, err)
	}
	return func() { f.Close() }, nil
}

// inUse reports whether a live process is writing dir: its lock file is held, or (a
// directory just created) it has none yet and is younger than unlockedGrace.
func inUse(dir string, mustHaveLock bool) bool {
	f, err := os.Open(filepath.Join(dir, lockName))
	if errors.Is(err, fs.ErrNotExist) {
		if !mustHaveLock {
			return false
		}
		if pid, ok := writerPID(filepath.Base(dir)); ok && !processAlive(pid) {
			return false // its writer died before it could lock it
		}
		info, err := os.Stat(dir)
		return err == nil && time.Since(info.ModTime()) < unlockedGrace
	}
	if err != nil {
		return true // cannot tell: leave it
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// writerPID is the process id a version directory's name carries (".new-<pid>-<random>").
func writerPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, newPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// processAlive reports whether a process with id pid exists (signal 0 checks without
// sending anything; EPERM means it exists but belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// switchCurrent points obj/current at version name: a new link renamed over the old one.
func switchCurrent(obj, name string) error {
	tmp := filepath.Join(obj, tmpPrefix+currentLink+"-"+randomSuffix())
	if err := os.Symlink(name, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(obj, currentLink)); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(obj)
	return nil
}

// removeVersions removes the version directories of obj other than keep, except one
// another process is committing (still locked).
func removeVersions(obj string, keep ...string) {
	entries, _ := os.ReadDir(obj)
	for _, e := range entries {
		if e.IsDir() && isVersionName(e.Name()) && !contains(keep, e.Name()) && !inUse(filepath.Join(obj, e.Name()), false) {
			os.RemoveAll(filepath.Join(obj, e.Name()))
		}
	}
}

// previousVersion is the version of obj numbered highest below cur: the one current named
// before it (commits number versions upwards), which a reader that resolved current a
// moment ago may still be opening; "" when there is none.
func previousVersion(obj, cur string) string {
	n, _ := strconv.Atoi(strings.TrimPrefix(cur, versionPrefix))
	best, prev := 0, ""
	entries, _ := os.ReadDir(obj)
	for _, e := range entries {
		if !e.IsDir() || !isVersionName(e.Name()) {
			continue
		}
		if k, _ := strconv.Atoi(strings.TrimPrefix(e.Name(), versionPrefix)); k < n && k > best {
			best, prev = k, e.Name()
		}
	}
	return prev
}

func isVersionName(name string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(name, versionPrefix))
	return strings.HasPrefix(name, versionPrefix) && err == nil && n > 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x != "" && x == s {
			return true
		}
	}
	return false
}

// isNotEmpty reports whether a rename failed because its target is a
// directory that is not empty (rename(2): ENOTEMPTY, or EEXIST on some
// systems), by the error's number, not its text.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recover brings every object directory to a clean state at start: versions being written
// when a process died (.new-…), stray temporary links and deleted objects not yet removed
// are removed, as are versions other than the current one; an object in the layout before
// versions (documents directly in its directory) is moved into its first version.
func (s *FS) recover() error {
	top, err := os.ReadDir(s.root)
	if err != nil {
		return err
	}
	for _, e := range top {
		if strings.HasPrefix(e.Name(), deletedPrefix) {
			os.RemoveAll(filepath.Join(s.root, e.Name()))
		}
	}
	return s.walkObjects(func(id druid.Druid, dir string) error {
		if err := s.recoverObject(id, dir); err != nil {
			return fmt.Errorf("recovering %s: %w", id.Qualified(), err)
		}
		return nil
	})
}

func (s *FS) recoverObject(id druid.Druid, obj string) error {
	unlock, err := lockObject(obj, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	entries, err := os.ReadDir(obj)
	if err != nil {
		return err
	}
	var legacy []string
	for _, e := range entries {
		switch name := e.Name(); {
		case strings.HasPrefix(name, newPrefix):
			if !inUse(filepath.Join(obj, name), true) {
				if err := os.RemoveAll(filepath.Join(obj, name)); err != nil {
					return err
				}
			}
		case strings.HasPrefix(name, tmpPrefix) && e.Type()&fs.ModeSymlink != 0:
			// A link made for a switch that never happened (a switch renames it at once).
			// The committing process holds the lock of the version it points at until the
			// switch is done: a link whose version is not locked (a killed committer) is
			// removed at once, one still locked only after the grace period.
			target, err := os.Readlink(filepath.Join(obj, name))
			stale := err == nil && !inUse(filepath.Join(obj, target), false)
			if info, err := e.Info(); stale || err == nil && time.Since(info.ModTime()) > unlockedGrace {
				os.Remove(filepath.Join(obj, name))
			}
		case strings.HasPrefix(name, tmpPrefix):
			// a temporary file of the layout before versions
			if err := os.RemoveAll(filepath.Join(obj, name)); err != nil {
				return err
			}
		case name == currentLink, name == lockName, e.IsDir() && isVersionName(name):
		case e.Type().IsRegular():
			legacy = append(legacy, name)
		}
	}
	cur, err := os.Readlink(filepath.Join(obj, currentLink))
	if err != nil && len(legacy) > 0 {
		// Before versions: link the documents into a first version, switch, then remove
		// them (a crash in between redoes or finishes this at the next start).
		v, err := s.Begin(context.Background(), id, false)
		if err != nil {
			return err
		}
		for _, name := range legacy {
			if err := linkOrCopy(filepath.Join(obj, name), filepath.Join(v.(*fsVersion).dir, name)); err != nil {
				v.Abort()
				return err
			}
		}
		if _, err := v.(*fsVersion).commitLocked(); err != nil {
			return err
		}
		cur, _ = os.Readlink(filepath.Join(obj, currentLink))
	}
	if cur != "" {
		for _, name := range legacy {
			if err := os.Remove(filepath.Join(obj, name)); err != nil {
				return err
			}
		}
		// a version committed but never switched to (only by a process that died: removeVersions
		// leaves one being committed alone) and older ones; the one current replaced stays
		removeVersions(obj, cur, previousVersion(obj, cur))
		os.Remove(filepath.Join(obj, cur, lockName)) // current, from a commit killed just after its switch
	}
	return nil
}
