package hours_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours"
)

// FuzzReadDates sends arbitrary from, to and when values through the whole
// read path (validator, range parsing, rendering): the answer is 200 with
// the days asked for, or 400 naming the parameter at fault, never anything
// else.
func FuzzReadDates(f *testing.F) {
	for _, s := range [][3]string{
		{"2026-03-08", "", "today"}, {"2026-03-01", "2026-03-14", "2026-03-08"}, {"", "2026-03-14", "2026-02-29"},
		{"2026-08-31", "2028-02-29", "1899-12-31"}, {"2026-02-30", "x", "tomorrow"}, {"2999-12-31", "", "2999-12-31"},
		{"0000-01-01", "", "0000-01-01"}, {"2026-03-08", "2026-03-07", "TODAY"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	svc, err := hours.New(context.Background(), hours.Config{
		BaseURL: "http://hours.test/hours", DB: filepath.Join(f.TempDir(), "hours.db"), SampleData: true,
		Now: func() time.Time { return testNow },
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { svc.Close() })
	h := svc.Handler()
	f.Fuzz(func(t *testing.T, from, to, when string) {
		q := url.Values{}
		if from != "" {
			q.Set("from", from)
		}
		if to != "" {
			q.Set("to", to)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/libraries/green/locations/reference.json?"+q.Encode(), nil))
		var doc struct {
			Data struct {
				Attributes struct {
					Hours []struct{ Day string } `json:"hours"`
				} `json:"attributes"`
			} `json:"data"`
			Errors []struct {
				Source struct{ Parameter string } `json:"source"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("from=%q to=%q: %d, body not JSON: %v", from, to, rec.Code, err)
		}
		switch rec.Code {
		case http.StatusOK:
			days := doc.Data.Attributes.Hours
			if len(days) == 0 || days[0].Day != from || (to != "" && days[len(days)-1].Day != to) || (to == "" && len(days) != 1) {
				t.Fatalf("from=%q to=%q: %d days from %+v", from, to, len(days), days[:min(len(days), 1)])
			}
		case http.StatusBadRequest:
			if len(doc.Errors) != 1 || (doc.Errors[0].Source.Parameter != "from" && doc.Errors[0].Source.Parameter != "to") {
				t.Fatalf("from=%q to=%q: 400 without the parameter: %s", from, to, rec.Body)
			}
		default:
			t.Fatalf("from=%q to=%q: %d %s", from, to, rec.Code, rec.Body)
		}

		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/library/green/location/reference/hours/for/"+url.PathEscape(when), nil))
		switch rec.Code {
		case http.StatusOK:
			var recs []struct{ Day string }
			if err := json.Unmarshal(rec.Body.Bytes(), &recs); err != nil || len(recs) == 0 || (when != "today" && recs[0].Day != when) {
				t.Fatalf("when=%q: %s", when, rec.Body)
			}
		case http.StatusBadRequest, http.StatusNotFound:
			// a bad date is 400; a when holding "/" names another path: 404
		default:
			t.Fatalf("when=%q: %d %s", when, rec.Code, rec.Body)
		}
	})
}
