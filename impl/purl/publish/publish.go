// Package publish validates object directories (public.xml, optional
// mods.xml and the files contentMetadata lists) and writes them into a PURL
// store. It is what `sitesvc purl publish DIR` and the loading of sample
// objects run. Nothing is written unless the whole object is valid.
package publish

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // image dimensions of GIF files
	_ "image/jpeg" // image dimensions of JPEG files
	_ "image/png"  // image dimensions of PNG files
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// Object is a validated object directory ready to be written.
type Object struct {
	Dir    string
	Record *record.Record
	// Public is public.xml in its served form (the seed's shape).
	Public []byte
	MODS   []byte // nil when the directory has no mods.xml
	// Warnings says what the records lacked and how they are read
	// instead; the object is published all the same.
	Warnings []string
}

// Option adds a check to Load and Tree.
type Option func(*options)

type options struct {
	modsSchema         *record.MODSSchema
	rebaseFrom, rebase string
}

// WithRebase rewrites every URL under the base from (no trailing slash)
// in public.xml and mods.xml to the same path under to before the
// records are read: the sample objects cite themselves (dc:identifier,
// MODS location and preferred citation) at a fixed base, and are
// published at the deployment's PURL base.
func WithRebase(from, to string) Option {
	return func(o *options) { o.rebaseFrom, o.rebase = from, to }
}

// rebased applies WithRebase to a record.
func (o *options) rebased(doc []byte) []byte {
	if o.rebaseFrom == "" {
		return doc
	}
	var to bytes.Buffer
	// The base goes into XML text and attribute values: escape it.
	if err := xml.EscapeText(&to, []byte(strings.TrimRight(o.rebase, "/")+"/")); err != nil {
		return doc // writing to a bytes.Buffer cannot fail
	}
	return bytes.ReplaceAll(doc, []byte(strings.TrimRight(o.rebaseFrom, "/")+"/"), to.Bytes())
}

// WithMODSSchema checks every mods.xml against the MODS 3.6 XML Schema too.
func WithMODSSchema(m *record.MODSSchema) Option {
	return func(o *options) { o.modsSchema = m }
}

// Load reads and validates the object in dir: public.xml must be a record
// in one of the accepted forms (record.Ingest; it is stored in the
// served form), mods.xml (when present) a valid MODS record (record.PrepareMODS), and every file of
// contentMetadata must exist in dir with the listed size (and, for PNG,
// JPEG and GIF images, the listed width and height).
func Load(dir string, opts ...Option) (*Object, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	pub, err := readInObject(dir, store.PublicXML, record.MaxDocumentBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	pub = o.rebased(pub)
	// A record that names no identifier is the object its folder names,
	// when the folder is named by a druid (as in a druid tree).
	folderID, _ := druid.Parse(filepath.Base(dir))
	in, err := record.IngestWith(context.Background(), pub, record.IngestOptions{
		Schema: o.modsSchema,
		ID:     folderID,
		Files: func(name string) (int64, error) {
			f, info, err := openInObject(dir, name)
			if err != nil {
				return 0, err
			}
			f.Close()
			return info.Size(), nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", dir, store.PublicXML, err)
	}
	rec := in.Record
	obj := &Object{Dir: dir, Record: rec, Public: in.Data, Warnings: in.Warnings}
	mods, err := readInObject(dir, store.ModsXML, record.MaxDocumentBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", dir, err)
	default:
		doc, warnings, err := record.PrepareMODS(context.Background(), o.rebased(mods), o.modsSchema)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, store.ModsXML, err)
		}
		for _, w := range warnings {
			obj.Warnings = append(obj.Warnings, store.ModsXML+": "+w)
		}
		obj.MODS = doc
	}
	for _, f := range rec.Files() {
		w, err := checkImage(dir, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		if w != "" {
			obj.Warnings = append(obj.Warnings, w)
		}
	}
	return obj, nil
}

// checkImage compares an image's pixel size (for the formats the standard
// library reads) with its imageData: a difference is a warning (the
// record is the publisher's word), not a refusal.
func checkImage(dir string, f record.File) (string, error) {
	if f.Width == 0 {
		return "", nil
	}
	fh, _, err := openInObject(dir, f.Name)
	if err != nil {
		return "", fmt.Errorf("file listed in contentMetadata: %w", err)
	}
	defer fh.Close()
	cfg, format, err := image.DecodeConfig(fh)
	if err != nil {
		return "", nil // a format the standard library does not read: trust the record
	}
	if cfg.Width != f.Width || cfg.Height != f.Height {
		return fmt.Sprintf("file %q is a %dx%d %s image, contentMetadata/imageData says %dx%d", f.Name, cfg.Width, cfg.Height, format, f.Width, f.Height), nil
	}
	return "", nil
}

// Write stores the object as one new version (store.Version): its files, mods.xml and
// public.xml are written into a version that becomes current only once all of them are
// there, so readers see the previous version whole until then, and the new one whole
// after; files of the previous version the new record no longer lists are gone with it.
// Each file is opened again as Load opened it (never through a link), and must still have
// the size Load checked. It returns whether the object is new to the store.
func Write(ctx context.Context, s store.Store, obj *Object) (bool, error) {
	id := obj.Record.Druid
	v, err := s.Begin(ctx, id, false)
	if err != nil {
		return false, fmt.Errorf("publishing %s: %w", id.Qualified(), err)
	}
	fail := func(err error) (bool, error) {
		v.Abort()
		return false, fmt.Errorf("publishing %s: %w", id.Qualified(), err)
	}
	for _, f := range obj.Record.Files() {
		fh, _, err := openInObject(obj.Dir, f.Name)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", obj.Dir, err))
		}
		// No more than the size checked, and exactly that many bytes.
		err = v.Write(f.Name, &exactReader{r: io.LimitReader(fh, f.Size+1), want: f.Size, name: f.Name})
		fh.Close()
		if err != nil {
			return fail(err)
		}
	}
	if obj.MODS != nil {
		if err := v.Write(store.ModsXML, bytes.NewReader(obj.MODS)); err != nil {
			return fail(err)
		}
	}
	if err := v.Write(store.PublicXML, bytes.NewReader(obj.Public)); err != nil {
		return fail(err)
	}
	created, err := v.Commit()
	if err != nil {
		return false, fmt.Errorf("publishing %s: %w", id.Qualified(), err)
	}
	return created, nil
}

// exactReader fails unless r yields exactly want bytes: a file that changed size since it
// was checked is not published.
type exactReader struct {
	r    io.Reader
	want int64
	n    int64
	name string
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += int64(n)
	if e.n > e.want || (err == io.EOF && e.n != e.want) {
		return n, fmt.Errorf("file %q changed while it was published (now %d bytes or more, checked at %d)", e.name, e.n, e.want)
	}
	return n, err
}

// Dirs finds object directories in dir, one level deep: dir itself when it
// holds a public.xml, else each of its direct subdirectories that does
// (deeper directories are never searched, and symbolic links are not
// followed), so that publishing a folder of objects never publishes a
// whole tree by surprise.
func Dirs(dir string) ([]string, error) {
	if _, err := os.Lstat(filepath.Join(dir, store.PublicXML)); err == nil {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("looking for objects in %s: %w", dir, err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		// Any entry named public.xml makes the directory an object, a link or a special
		// file included: Load then refuses it by name and nothing of the tree is
		// published, rather than the object being left out without a word.
		p := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(filepath.Join(p, store.PublicXML)); err == nil {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no object: neither it nor a directory directly in it has a public.xml", dir)
	}
	sort.Strings(dirs)
	return dirs, nil
}

// Tree validates every object under dir and, only when all are valid,
// writes them. It returns the published objects.
func Tree(ctx context.Context, s store.Store, dir string, opts ...Option) ([]*Object, error) {
	dirs, err := Dirs(dir)
	if err != nil {
		return nil, err
	}
	var objs []*Object
	seen := map[string]string{}
	for _, d := range dirs {
		obj, err := Load(d, opts...)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[string(obj.Record.Druid)]; dup {
			return nil, fmt.Errorf("%s and %s both hold %s", other, d, obj.Record.Druid.Qualified())
		}
		seen[string(obj.Record.Druid)] = d
		objs = append(objs, obj)
	}
	for _, obj := range objs {
		if _, err := Write(ctx, s, obj); err != nil {
			return nil, err
		}
	}
	return objs, nil
}
