// Package purl is the PURL service: the persistent page, public XML, MODS,
// IIIF manifest and files of every object in the store, and publishing
// through authenticated PUT and DELETE. See docs/purl.md and api/purl.yaml.
package purl

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/heldbytes"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/server"
)

// ObjectListener is told when a published object may have changed: after
// every write and withdrawal through this service, and when the service
// sees a change another process made. The Embed service of the same
// process implements it to drop its cached copy at once (cmd/sitesvc
// wires them). id is the bare druid. Calls must not block: they are made
// on the writer's request.
type ObjectListener interface {
	ObjectChanged(id string)
}

// Authenticator resolves bearer tokens (impl/auth.Tokens implements it).
type Authenticator interface {
	Authenticate(token string) (auth.Principal, bool)
}

// Config configures the service. BaseURL and EmbedBaseURL are public,
// absolute URLs without a trailing slash.
type Config struct {
	BaseURL      string
	EmbedBaseURL string
	// DataDir holds the store (<DataDir>/purl).
	DataDir string
	// SamplesDir, when set, is published into an empty store at start.
	SamplesDir string
	// SamplesSource names the samples in the log (default SamplesDir);
	// built-in samples are unpacked to a temporary SamplesDir.
	SamplesSource string
	// LargeSamplesDir, when set, is published with SamplesDir: the large
	// samples made at build time (go run ./cmd/purlsamples -large).
	LargeSamplesDir string
	// MODSSchema, when set, checks every MODS record published over HTTP
	// against the MODS 3.6 XML Schema (else only its structure is checked).
	MODSSchema *record.MODSSchema
	// Changes, when set, is told of every change to an object (see
	// ObjectListener).
	Changes ObjectListener
	// Tokens authorises writes (role publisher or admin) and restricted
	// reads (roles group:<name>, location:<name>). Nil refuses both.
	Tokens Authenticator
	// Sessions is the site's sign-in: a signed-in person's rights groups
	// (group:<name>, from --group-map) admit them to restricted files,
	// tiles and zips like a bearer token's roles (patron.go). Nil: bearer
	// tokens only.
	Sessions auth.SessionReader
	// SignInURL is the site's sign-in page (<public-url>/auth/login),
	// named in refusals when Sessions is configured.
	SignInURL string
	// AccessTokens resolves the IIIF Authorization Flow's access tokens
	// (impl/purl/iiifauth); nil: none are accepted.
	AccessTokens AccessTokens
	// AuthServices, when set, describes the IIIF Authorization Flow's
	// services on restricted resources in manifests and info.json
	// (impl/purl/iiifauth).
	AuthServices AuthServices
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client for location rights (location.go); from anywhere else
	// the connection's address counts.
	TrustedProxies []netip.Prefix
	// LocationHours, when set, adds today's opening hours and the Hours
	// page to what a patron reads about a location's item (location.go).
	LocationHours LocationHours
	// LocationNetworks lists, per location name, the client networks that
	// count as being at that location.
	LocationNetworks map[string][]netip.Prefix
	// AccessNames maps "group:<slug>" and "location:<slug>" to the names
	// patrons read on pages ("Members of the university", "the Special
	// Collections reading room, Green Library"); the slug is shown when a
	// name is not configured.
	AccessNames map[string]string
	// AccessContact is whom patrons contact about files they cannot
	// download: an e-mail address, a URL or plain text ("" for none).
	AccessContact string
	// MaxAge is the Cache-Control max-age of object responses (default 5 minutes).
	MaxAge time.Duration
	// Now is the clock embargoes are judged by (default time.Now).
	Now func() time.Time
	// Recheck bounds how long a cached object is served without looking
	// at the store again (default 1 second). Writes through this service
	// are seen at once; this is how late a write by another process
	// (sitesvc purl publish against a running server) can be seen.
	Recheck time.Duration
	// CacheSize is the most objects kept prepared in memory, least
	// recently read first out (default 4096).
	CacheSize int
	// IIIF bounds the image service's work and disk (iiifimage.Options;
	// zero values take its defaults).
	IIIF   iiifimage.Options
	Logger *slog.Logger
}

// SamplesPURLBase is the PURL base the sample objects (samples/purl,
// written by cmd/purlsamples) cite themselves at; loading them rewrites it
// to Config.BaseURL.
const SamplesPURLBase = "https://purl.example.org"

// Service is the PURL service. It implements server.Service and server.Indexer.
type Service struct {
	cfg Config
	// heldFiles are the small files anyone may read held in memory, over
	// all cached objects (heldfiles.go); nil: none held.
	heldFiles *heldbytes.Store[heldKey, *heldFile]
	store     store.Store
	fsStore   *store.FS
	handler   http.Handler
	// tiler makes and finds the IIIF image pyramids (iiif_image.go).
	tiler *iiifimage.Tiler

	mu    sync.Mutex
	cache *simplelru.LRU[druid.Druid, *object]
	// generation counts forget calls: a load that started before a write
	// must not put what it read into the cache after the write dropped it.
	generation uint64
	// started is the origin of object.checked (a monotonic clock).
	started time.Time

	cacheControlPublic, cacheControlPrivate []string // header values
	// writeMu serialises writes of one service so that validation against
	// the stored public XML (PUT .mods) and the write happen together.
	writeMu sync.Mutex
}

var (
	_ server.Service = (*Service)(nil)
	_ server.Indexer = (*Service)(nil)
)

// New opens the store under cfg.DataDir, loads the samples into it when it
// is empty, and returns the service.
func New(ctx context.Context, cfg Config) (*Service, error) {
	for name, u := range map[string]string{"BaseURL": cfg.BaseURL, "EmbedBaseURL": cfg.EmbedBaseURL} {
		p, err := url.Parse(u)
		if err != nil || p.Scheme == "" || p.Host == "" {
			return nil, fmt.Errorf("purl: %s %q is not an absolute URL", name, u)
		}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.EmbedBaseURL = strings.TrimRight(cfg.EmbedBaseURL, "/")
	if cfg.DataDir == "" {
		return nil, errors.New("purl: no data directory")
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = 5 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = time.Second
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 4096
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := store.OpenFS(filepath.Join(cfg.DataDir, "purl"))
	if err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	var s *Service
	// An object leaving the cache lets go of the files it holds.
	cache, err := simplelru.NewLRU[druid.Druid, *object](cfg.CacheSize, func(_ druid.Druid, obj *object) { s.retire(obj) })
	if err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	s = &Service{cfg: cfg, store: st, fsStore: st, cache: cache, started: time.Now(),
		cacheControlPublic:  []string{fmt.Sprintf("public, max-age=%d", int(cfg.MaxAge/time.Second))},
		cacheControlPrivate: []string{fmt.Sprintf("private, max-age=%d", int(cfg.MaxAge/time.Second))},
	}
	if s.heldFiles, err = heldbytes.New[heldKey, *heldFile](HeldFileLimits, nil); err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	if s.tiler, err = newTiler(cfg); err != nil {
		return nil, err
	}
	if cfg.SamplesDir != "" {
		empty, err := st.Empty(ctx)
		if err != nil {
			return nil, fmt.Errorf("purl: %w", err)
		}
		if empty {
			// The samples cite themselves at SamplesPURLBase; published
			// here, they cite this deployment's PURLs.
			opts := []publish.Option{publish.WithRebase(SamplesPURLBase, cfg.BaseURL)}
			if cfg.MODSSchema != nil {
				opts = append(opts, publish.WithMODSSchema(cfg.MODSSchema))
			}
			for _, dir := range []string{cfg.SamplesDir, cfg.LargeSamplesDir} {
				if dir == "" {
					continue
				}
				objs, err := publish.Tree(ctx, st, dir, opts...)
				if err != nil {
					return nil, fmt.Errorf("purl: loading samples: %w", err)
				}
				source := dir
				if dir == cfg.SamplesDir && cfg.SamplesSource != "" {
					source = cfg.SamplesSource
				}
				cfg.Logger.Info("purl: loaded sample objects into an empty store", "count", len(objs), "from", source)
			}
		}
	}
	e, err := s.newEcho()
	if err != nil {
		return nil, err
	}
	s.handler = filePaths(e)
	return s, nil
}

// filePaths lets a file in a folder be read at /{id}/file/{path} with the
// slashes of its path as they are (docs/purl.md, "Files in folders"): the
// rest of the path after "/file/" is the file's name, which the contract's
// getFile takes as its one-segment {name} with the slashes escaped (as a
// client may send them, %2F). The name is checked like any other: only a
// name the record lists is served, and no listed name can leave the
// object's folder (record.CheckFilePath).
func filePaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		esc := r.URL.EscapedPath()
		if !strings.Contains(esc, "/file/") {
			// Not a file path: nothing to split (every read passes here).
			next.ServeHTTP(w, r)
			return
		}
		// "/" id "/file/" path: split only when the path has a folder
		// (the common file path has none and is served as it is).
		id, rest, ok := strings.Cut(strings.TrimPrefix(esc, "/"), "/")
		name, isFile := strings.CutPrefix(rest, "file/")
		if ok && isFile && strings.HasPrefix(esc, "/") && strings.Contains(name, "/") {
			u := *r.URL
			u.RawPath = "/" + id + "/file/" + strings.ReplaceAll(name, "/", "%2F")
			if p, err := url.PathUnescape(u.RawPath); err == nil {
				u.Path = p
				r2 := r.Clone(r.Context())
				r2.URL = &u
				r = r2
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Name implements server.Service.
func (s *Service) Name() string { return "purl" }

// Handler implements server.Service.
func (s *Service) Handler() http.Handler { return s.handler }

// Ready implements server.Service: the store must be readable and
// writable (publishing writes into it).
func (s *Service) Ready(ctx context.Context) error {
	if _, err := os.ReadDir(s.fsStore.Root()); err != nil {
		return fmt.Errorf("purl store: %w", err)
	}
	if err := server.Writable(s.fsStore.Root()); err != nil {
		return fmt.Errorf("purl store: %w", err)
	}
	return nil
}

// Close implements server.Service.
func (s *Service) Close() error { return nil }

// IndexLinks implements server.Indexer: every published, discoverable
// object (the server lists the contract itself).
func (s *Service) IndexLinks() []server.Link {
	var links []server.Link
	ids, err := s.store.List(context.Background())
	if err != nil {
		s.cfg.Logger.Error("purl: listing objects for the index", "err", err)
		return links
	}
	for _, id := range ids {
		obj, err := s.object(context.Background(), id)
		if err != nil {
			continue // dark or unreadable objects are not listed
		}
		links = append(links, server.Link{
			Title: fmt.Sprintf("PURL %s: %s (%s)", id, obj.rec.Title(), s.describeAccess(obj.rec, s.cfg.Now())),
			URL:   s.purl(id),
		})
	}
	return links
}

func (s *Service) describeAccess(r *record.Record, now time.Time) string {
	switch {
	case r.Rights.Embargoed(now):
		return "embargoed"
	case r.Rights.Read == record.AccessWorld:
		return r.ContentType
	case r.Rights.Read == record.AccessNone:
		return "citation only"
	default:
		return r.Rights.Read.String() + ": " + s.accessName(r.Rights.Read, r.Rights.ReadName)
	}
}

func (s *Service) purl(id druid.Druid) string { return s.cfg.BaseURL + "/" + string(id) }

// object is a published object as served: its records, what is derived
// from them, and the file stamps that say whether it is still current.
type object struct {
	rec     *record.Record
	version string // the store version every part was read from (pin.go)
	// mods is the published or embedded MODS record, nil when the served
	// MODS is derived from Dublin Core (the page then shows the DC).
	mods       *record.MODS
	publicInfo fs.FileInfo
	modsInfo   fs.FileInfo // nil without a published mods.xml

	public  representation
	modsDoc representation
	lastMod time.Time
	// rightsChange is when an embargo (the object's or a file's) in force
	// when the derived pages were built ends: they are built again then
	// (zero: none).
	rightsChange time.Time
	html         representation
	manifest     representation
	collection   []collectionLink
	// members of a collection object, and when they were listed: a
	// collection's page is rebuilt after memberTTL so that objects
	// published into it later appear.
	members  []collectionLink
	listedAt time.Time
	// held are the small files anyone may read, held in memory once
	// served (heldfiles.go).
	held heldFiles
	// checked is when (nanoseconds since Service.started) the store's
	// stamps last matched publicInfo and modsInfo.
	checked atomic.Int64
	// pyramids are the IIIF image pyramids of its files (iiif_image.go).
	pyramids objectPyramids
	// imageSizes are the sizes read from image files the record gives
	// none (image_sizes.go); sizesRetry, when not zero, is when the
	// object is built again because some could not be read (the build
	// reuses those that were).
	imageSizes imageSizes
	sizesRetry time.Time
	// constituents are a virtual object's constituents' images
	// (virtual.go).
	constituents constituents
}

// memberTTL bounds how stale the member list of a collection page can be.
const memberTTL = 30 * time.Second

type collectionLink struct {
	URL   string
	Title string
	// Collection marks a member that is itself a collection.
	Collection bool
	// HasManifest says the member has a IIIF manifest (or Collection):
	// only those are items of the collection's IIIF Collection.
	HasManifest bool
}

// representation is bytes with their strong ETag, and once the object is
// complete (its Last-Modified known) the same prepared for serving.
type representation struct {
	body   []byte
	etag   string
	served *apiserve.Content
}

// prepare makes the representations ready to serve, stamped with the
// object's Last-Modified.
func (o *object) prepare() {
	for _, r := range []*representation{&o.public, &o.modsDoc, &o.html, &o.manifest} {
		r.served = apiserve.NewContent(r.body, r.etag, o.lastMod)
	}
}

func newRepresentation(body []byte) representation {
	sum := sha256.Sum256(body)
	return representation{body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
}

// errDark marks objects that exist but must not be seen.
var errDark = errors.New("object is dark")

// object returns the current state of an object, from the cache when the
// stored records have not changed since it was built (looked at again at
// most every cfg.Recheck). Dark objects return an error wrapping
// store.ErrNotFound.
func (s *Service) object(ctx context.Context, id druid.Druid) (*object, error) {
	now := s.cfg.Now()
	s.mu.Lock()
	obj, _ := s.cache.Get(id)
	generation := s.generation
	s.mu.Unlock()
	cached := obj != nil
	prev := obj // what it read of the same version is not read again
	if obj != nil && ((!obj.rightsChange.IsZero() && !now.Before(obj.rightsChange)) || (!obj.sizesRetry.IsZero() && !now.Before(obj.sizesRetry)) || (obj.rec.ObjectType == "collection" && now.Sub(obj.listedAt) >= memberTTL)) {
		obj = nil
	}
	if obj != nil {
		since := int64(time.Since(s.started))
		if since-obj.checked.Load() >= int64(s.cfg.Recheck) {
			pubInfo, err := s.store.Stat(ctx, id, store.PublicXML)
			if err != nil {
				s.forget(id) // withdrawn by another process
				return nil, err
			}
			modsInfo, err := s.store.Stat(ctx, id, store.ModsXML)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			if sameFile(obj.publicInfo, pubInfo) && sameFile(obj.modsInfo, modsInfo) && !s.constituentsChanged(ctx, obj) {
				obj.checked.Store(since)
			} else {
				obj = nil
			}
		}
	}
	if obj == nil {
		var err error
		if obj, err = s.load(ctx, id, now, prev); err != nil {
			if cached && errors.Is(err, store.ErrNotFound) {
				s.forget(id) // withdrawn by another process
			}
			return nil, err
		}
		obj.checked.Store(int64(time.Since(s.started)))
		s.mu.Lock()
		if s.generation == generation {
			if old, ok := s.cache.Peek(id); ok && old != obj {
				s.retire(old) // replaced by a newer build: Add does not call the eviction
			}
			s.cache.Add(id, obj)
		} else {
			// Built while a write was forgetting id: this build is answered
			// but never cached, so nothing would let go of what it holds.
			s.retire(obj)
		}
		s.mu.Unlock()
	}
	if obj.rec.Rights.Dark() {
		return nil, fmt.Errorf("%w: %w", store.ErrNotFound, errDark)
	}
	return obj, nil
}

func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// forget drops an object from the cache after a write, and every
// collection with it (their member lists may have changed), and every
// virtual object that read it as a constituent.
func (s *Service) forget(id druid.Druid) {
	s.mu.Lock()
	s.generation++
	s.cache.Remove(id)
	var virtual []druid.Druid
	for _, cid := range s.cache.Keys() {
		obj, ok := s.cache.Peek(cid)
		if !ok {
			continue
		}
		if obj.rec.ObjectType == "collection" {
			s.cache.Remove(cid)
		} else if _, read := obj.constituents.stamps[id]; read {
			s.cache.Remove(cid)
			virtual = append(virtual, cid)
		}
	}
	s.mu.Unlock()
	if s.cfg.Changes != nil {
		s.cfg.Changes.ObjectChanged(id.String())
		for _, v := range virtual {
			s.cfg.Changes.ObjectChanged(v.String())
		}
	}
}

// members lists the discoverable objects that belong to the collection.
// It reads the records directly rather than through the cache, so nested
// or cyclic collections cannot recurse.
func (s *Service) members(ctx context.Context, collection druid.Druid) []collectionLink {
	ids, err := s.store.List(ctx)
	if err != nil {
		s.cfg.Logger.Error("purl: listing members", "collection", collection.Qualified(), "err", err)
		return nil
	}
	var out []collectionLink
	for _, id := range ids {
		if id == collection {
			continue
		}
		data, _, err := store.ReadAll(ctx, s.store, id, store.PublicXML)
		if err != nil {
			continue
		}
		rec, err := record.Parse(data)
		if err != nil || rec.Rights.Dark() || !slices.Contains(rec.Collections, collection) {
			continue
		}
		has := rec.HasManifest()
		if !has && rec.ObjectType != "collection" && (len(rec.UnsizedImages()) > 0 || rec.HasExternalImages()) {
			// Its record alone cannot say (images sized from their files,
			// a virtual object's constituents): the member's build can. It
			// reads no collection, so this does not recurse.
			if member, err := s.object(ctx, id); err == nil {
				has = member.hasManifest()
			}
		}
		out = append(out, collectionLink{URL: s.purl(id), Title: rec.Title(), Collection: rec.ObjectType == "collection", HasManifest: has})
	}
	return out
}

// load reads and derives an object. The stat of each record is taken from
// the open file, so it describes exactly the bytes read. prev, when not
// nil, is the object's cached build, whose image sizes are reused when
// it is of the same version.
func (s *Service) load(ctx context.Context, id druid.Druid, now time.Time, prev *object) (*object, error) {
	// Every part of the object from one version (version.go of the store).
	version, err := s.store.Current(ctx, id)
	if err != nil {
		return nil, err
	}
	pub, pubInfo, err := store.ReadAllAt(ctx, s.store, id, version, store.PublicXML)
	if err != nil {
		return nil, err
	}
	rec, err := record.Parse(pub)
	if err != nil {
		return nil, fmt.Errorf("stored public XML of %s: %w", id.Qualified(), err)
	}
	if rec.Druid != id {
		return nil, fmt.Errorf("stored public XML of %s names %s", id.Qualified(), rec.Druid.Qualified())
	}
	obj := &object{rec: rec, version: version, publicInfo: pubInfo, public: newRepresentation(pub), lastMod: pubInfo.ModTime()}
	mods, modsInfo, err := store.ReadAllAt(ctx, s.store, id, version, store.ModsXML)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		if obj.mods, err = record.ParseMODS(mods); err != nil {
			return nil, fmt.Errorf("stored MODS of %s: %w", id.Qualified(), err)
		}
		obj.modsInfo = modsInfo
		obj.modsDoc = newRepresentation(mods)
		if modsInfo.ModTime().After(obj.lastMod) {
			obj.lastMod = modsInfo.ModTime()
		}
	}
	if obj.modsInfo == nil {
		// No MODS published: the record's embedded one, else one derived
		// from its Dublin Core (docs/purl.md, "MODS").
		if rec.MODS != nil {
			// The record keeps its MODS as published; .mods serves it as
			// MODS 3.6 (repaired as when it was published).
			doc, _, err := record.PrepareMODS(ctx, rec.MODS, s.cfg.MODSSchema)
			if err != nil {
				return nil, fmt.Errorf("embedded MODS of %s: %w", id.Qualified(), err)
			}
			if obj.mods, err = record.ParseMODS(doc); err != nil {
				return nil, fmt.Errorf("embedded MODS of %s: %w", id.Qualified(), err)
			}
			obj.modsDoc = newRepresentation(doc)
		} else {
			obj.modsDoc = newRepresentation(record.DeriveMODS(rec, s.purl(id)))
		}
	}
	if len(rec.Rights.Doubts) > 0 {
		// When in doubt, deny, and say so (docs/purl.md, "Rights").
		s.cfg.Logger.WarnContext(ctx, "purl: rights read as no access where unclear", "druid", id.Qualified(), "doubts", rec.Rights.Doubts)
	}
	if rec.Rights.Dark() {
		return obj, nil
	}
	obj.rightsChange = rec.Rights.NextEmbargoEnd(now)
	if !s.sizeImages(ctx, obj, prev) {
		obj.sizesRetry = now.Add(imageSizeRetry)
	}
	if rec.ObjectType != "collection" {
		s.loadConstituents(ctx, obj, now)
	}
	for _, c := range rec.Collections {
		link := collectionLink{URL: s.purl(c), Title: c.Qualified()}
		if c != id {
			if data, _, err := store.ReadAll(ctx, s.store, c, store.PublicXML); err == nil {
				if crec, err := record.Parse(data); err == nil && !crec.Rights.Dark() {
					link.Title = crec.Title()
				}
			}
		}
		obj.collection = append(obj.collection, link)
	}
	if rec.ObjectType == "collection" {
		obj.members, obj.listedAt = s.members(ctx, id), now
	}
	page, err := s.renderPage(obj, now)
	if err != nil {
		return nil, fmt.Errorf("rendering the page of %s: %w", id.Qualified(), err)
	}
	obj.html = newRepresentation(page)
	if obj.hasManifest() {
		man, err := s.buildManifest(obj)
		if err != nil {
			return nil, fmt.Errorf("building the manifest of %s: %w", id.Qualified(), err)
		}
		obj.manifest = newRepresentation(man)
	}
	obj.prepare()
	return obj, nil
}
