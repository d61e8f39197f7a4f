package main_test

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
)

// bigResults answers getScoringMatrix with a large text and processSequences (overload 3)
// with a large text followed by a value no part type can carry.
type bigResults struct {
	recorder
	text string
}

func (b *bigResults) GetScoringMatrix(context.Context, *soapapi.GetScoringMatrixRequest) (*soapapi.GetScoringMatrixResponse, error) {
	return &soapapi.GetScoringMatrixResponse{GetScoringMatrixReturn: b.text}, nil
}

func (b *bigResults) ProcessSequences2(context.Context, *soapapi.ProcessSequencesRequest2) (*soapapi.ProcessSequencesResponse2, error) {
	return &soapapi.ProcessSequencesResponse2{ProcessSequencesReturn: []any{b.text, []byte("x")}}, nil
}

// A large response is written as it is encoded (no Content-Length: it was not built whole
// first) and arrives intact; one that fails part-way cuts the connection, so the client
// cannot take a truncated envelope for a whole one.
func TestLargeResponsesStream(t *testing.T) {
	impl := &bigResults{text: strings.Repeat("<report a=\"1\">M41L &amp; T215Y</report>\n", 64<<10)} // 2.6 MB
	h, err := soap.NewHandler(soap.HandlerConfig{Operations: soapapi.Operations(impl), RequestNamespace: reqNS, ResponseNamespace: respNS})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Post(srv.URL, "text/xml; charset=utf-8", strings.NewReader(`<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><getScoringMatrix xmlns="`+reqNS+`"><key>k</key></getScoringMatrix></e:Body></e:Envelope>`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if resp.ContentLength != -1 {
		t.Errorf("Content-Length %d: the response was built whole", resp.ContentLength)
	}
	var r struct {
		Text string `xml:"Body>getScoringMatrixResponse>getScoringMatrixReturn"`
	}
	if err := xml.Unmarshal(body, &r); err != nil || r.Text != impl.text {
		t.Fatalf("streamed response: %v, text intact %v", err, r.Text == impl.text)
	}

	resp, err = http.Post(srv.URL, "text/xml; charset=utf-8", strings.NewReader(`<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><processSequences xmlns="`+reqNS+`"><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData><s>x</s></inputData></processSequences></e:Body></e:Envelope>`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Error("a response that failed part-way ended like a whole one")
	}
}
