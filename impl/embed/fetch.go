package embed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
)

// errObjectNotFound is a PURL answer of 404 or 410: unknown, deleted or dark.
var errObjectNotFound = errors.New("object not found")

// errUpstream is any other failure to get a public XML record: the PURL
// service unreachable, timing out, answering 5xx, redirecting elsewhere or
// sending something unreadable. It becomes 502.
var errUpstream = errors.New("PURL service failed")

// record is one fetched public XML record.
type record struct {
	body        []byte
	etag        string
	notModified bool // 304 to a conditional request: body is empty
}

// fetcher gets public XML records from the configured PURL base, and from
// nowhere else: the request URL is built by the generated PURL client from
// the base and a validated druid, and redirects are only followed within the
// base.
type fetcher struct {
	client  *purlapi.Client
	timeout time.Duration
}

// newHTTPClient is the outbound client: bounded connect, header and total
// times, and no redirect leaving the PURL base (its scheme, host and path).
func newHTTPClient(base purlref.Base, timeout time.Duration) *http.Client {
	transport := &http.Transport{
		Proxy: nil, // the PURL base is reached directly, never through an environment proxy
		DialContext: (&net.Dialer{
			Timeout:   timeout,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return fmt.Errorf("%w: too many redirects", errUpstream)
			}
			if !base.Contains(req.URL) {
				return fmt.Errorf("%w: redirect outside the PURL base (%s://%s%s) refused", errUpstream, req.URL.Scheme, req.URL.Host, req.URL.EscapedPath())
			}
			return nil
		},
	}
}

func newFetcher(base purlref.Base, doer purlapi.HttpRequestDoer, timeout time.Duration) (*fetcher, error) {
	c, err := purlapi.NewClient(base.String()+"/", purlapi.WithHTTPClient(doer))
	if err != nil {
		return nil, fmt.Errorf("PURL client for %s: %w", base, err)
	}
	return &fetcher{client: c, timeout: timeout}, nil
}

// maxRecordBytes bounds what is read from the PURL service.
const maxRecordBytes = 8 << 20

// fetch gets the public XML record of druid, conditionally when etag is
// not empty.
func (f *fetcher) fetch(ctx context.Context, druid, etag string) (record, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	params := &purlapi.GetPublicXmlParams{}
	if etag != "" {
		params.IfNoneMatch = &etag
	}
	resp, err := f.client.GetPublicXml(ctx, druid, params)
	if err != nil {
		return record{}, fmt.Errorf("%w: GET %s.xml: %w", errUpstream, druid, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxRecordBytes+1))
		if err != nil {
			return record{}, fmt.Errorf("%w: reading %s.xml: %w", errUpstream, druid, err)
		}
		if len(body) > maxRecordBytes {
			return record{}, fmt.Errorf("%w: %s.xml is larger than %d bytes", errUpstream, druid, maxRecordBytes)
		}
		return record{body: body, etag: resp.Header.Get("ETag")}, nil
	case http.StatusNotModified:
		if etag == "" {
			return record{}, fmt.Errorf("%w: 304 to an unconditional request for %s.xml", errUpstream, druid)
		}
		return record{etag: etag, notModified: true}, nil
	case http.StatusNotFound, http.StatusGone:
		return record{}, fmt.Errorf("%w: %s (PURL answered %d)", errObjectNotFound, druid, resp.StatusCode)
	default:
		return record{}, fmt.Errorf("%w: GET %s.xml answered %s", errUpstream, druid, resp.Status)
	}
}

// manifest asks the PURL service for druid's IIIF manifest (for a record
// that cannot say whether it has one, objectview.Object.ManifestUnknown):
// 200 yes (with the manifest, nil when larger than maxRecordBytes), 404
// no, anything else an error.
func (f *fetcher) manifest(ctx context.Context, druid string) (body []byte, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	resp, err := f.client.GetManifest(ctx, druid, &purlapi.GetManifestParams{})
	if err != nil {
		return nil, false, fmt.Errorf("%w: GET %s/iiif/manifest: %w", errUpstream, druid, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxRecordBytes+1))
		if err != nil {
			return nil, false, fmt.Errorf("%w: reading %s/iiif/manifest: %w", errUpstream, druid, err)
		}
		if len(body) > maxRecordBytes {
			return nil, true, nil
		}
		return body, true, nil
	case http.StatusNotFound, http.StatusGone:
		return nil, false, nil
	default:
		return nil, false, fmt.Errorf("%w: GET %s/iiif/manifest answered %s", errUpstream, druid, resp.Status)
	}
}

// LocalPurl is the PURL service of this process, for InProcessPurl: its
// handler (paths relative to its base URL), or nil while it is not built.
type LocalPurl func() http.Handler

// InProcessPurl is a Config.PurlClient that answers the fetcher's requests
// from the PURL service's handler in this process, without a network round
// trip: when both services run in one process, Embed no longer needs to
// reach its own public hostname (an instance that could not, behind a proxy
// or a firewall, answered 502 on every embed). Requests are built by the
// generated PURL client under baseURL (the PURL base); the handler sees the
// path relative to it, as the server's mount gives it.
func InProcessPurl(baseURL string, local LocalPurl) (purlapi.HttpRequestDoer, error) {
	base, err := purlref.ParseBase(baseURL)
	if err != nil {
		return nil, err
	}
	prefix, err := url.Parse(base.String())
	if err != nil {
		return nil, fmt.Errorf("PURL base %s: %w", base, err)
	}
	return &inProcessDoer{base: base, prefix: strings.TrimRight(prefix.EscapedPath(), "/"), local: local}, nil
}

type inProcessDoer struct {
	base   purlref.Base
	prefix string // the base's escaped path
	local  LocalPurl
}

func (d *inProcessDoer) Do(req *http.Request) (*http.Response, error) {
	if !d.base.Contains(req.URL) {
		return nil, fmt.Errorf("%w: %s is not under the PURL base", errUpstream, req.URL.Redacted())
	}
	h := d.local()
	if h == nil {
		return nil, fmt.Errorf("%w: the PURL service of this process is not running", errUpstream)
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	rel := strings.TrimPrefix(req.URL.EscapedPath(), d.prefix)
	if rel == "" {
		rel = "/"
	}
	in.URL = &url.URL{Path: mustUnescape(rel), RawPath: rel, RawQuery: req.URL.RawQuery}
	in.RequestURI = in.URL.RequestURI()
	in.Host = req.URL.Host
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &bufferedResponse{header: http.Header{}}
	h.ServeHTTP(w, in)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

func mustUnescape(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// bufferedResponse is the response of an in-process request: the status,
// the header and at most maxRecordBytes+1 bytes of the body (the fetcher
// refuses more anyway).
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(code int) {
	if b.status == 0 && code >= 200 {
		b.status = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if room := maxRecordBytes + 1 - b.body.Len(); room > 0 {
		b.body.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// probeDruid is a well-formed druid no repository holds (its letters and
// digits repeat the pattern's last ones): readiness asks the PURL service
// for it and takes any answer but a failure as reachable.
const probeDruid = "zz999zz9999"

// reachable reports whether the PURL service answers: a 404 for the probe
// druid is as good as its record.
func (f *fetcher) reachable(ctx context.Context) error {
	_, err := f.fetch(ctx, probeDruid, "")
	if err != nil && !errors.Is(err, errObjectNotFound) {
		return err
	}
	return nil
}
