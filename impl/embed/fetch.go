package embed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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
