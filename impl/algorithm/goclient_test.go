package algorithm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/resistance"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// The generated Go client (gen/soapapi.Client) against the real binary:
// every operation and overload, their faults, and the invalid-key report.

// mutationReport is the Go example of docs/clients.md, verbatim (see
// TestGoClientDocExample).
func mutationReport(ctx context.Context, endpoint, key string) (string, error) {
	client := soapapi.NewClient(endpoint, &http.Client{Timeout: 30 * time.Second})
	resp, err := client.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{
		Key:           key,
		ReportTypeInt: 0, // 0 simple XML, 1 detailed XML, 2 XML 2009, 3 tab-separated
		// [sample][gene: PR, RT, IN][mutation]
		MutationsList: [][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}},
	})
	var fault *soap.Fault
	if errors.As(err, &fault) {
		return "", fmt.Errorf("the service refused the request (%s fault): %s", fault.Code, fault.String)
	}
	if err != nil {
		return "", err
	}
	return resp.ProcessMutationListsReturn, nil
}

// fromAddress is an HTTP client whose connections come from a loopback
// address of their own, so that each gets its own invalid-key rate limit
// (the service limits invalid keys per client address).
func fromAddress(ip string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
}

func wantFault(t *testing.T, err error, code soap.FaultCode, text string) {
	t.Helper()
	var f *soap.Fault
	if !errors.As(err, &f) {
		t.Fatalf("got %v (%T), want a %s fault", err, err, code)
	}
	if f.Code != code || !strings.Contains(f.String, text) {
		t.Fatalf("fault %s %q, want %s containing %q", f.Code, f.String, code, text)
	}
}

func TestGoClientAgainstBinary(t *testing.T) {
	t.Parallel()
	srv := startBinary(t)
	ctx := context.Background()
	client := soapapi.NewClient(srv.Endpoint, &http.Client{Timeout: 60 * time.Second})
	engine := testEngine(t)
	lists := [][][]string{
		{nil, {"M41L", "M184V", "T215Y"}, nil},
		{{"D30N", "L90M"}, {"K103N"}, {"Q148H", "G140S"}},
	}
	// inputData of overloads 2 and 3: the same lists as an anyType array.
	inputData := make([]any, len(lists))
	for i, sample := range lists {
		genes := make([]any, len(sample))
		for g, muts := range sample {
			if muts == nil {
				continue
			}
			items := make([]any, len(muts))
			for m, mut := range muts {
				items[m] = mut
			}
			genes[g] = items
		}
		inputData[i] = genes
	}

	t.Run("processMutationLists every report type", func(t *testing.T) {
		for rt := int32(0); rt <= 3; rt++ {
			resp, err := client.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{Key: srv.Key, ReportTypeInt: rt, MutationsList: lists})
			if err != nil {
				t.Fatalf("report type %d: %v", rt, err)
			}
			want, err := engine.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportType(rt)})
			if err != nil {
				t.Fatal(err)
			}
			if got := atReportTime(resp.ProcessMutationListsReturn); got != want {
				t.Errorf("report type %d differs from the engine's:\n%.400s\nwant\n%.400s", rt, got, want)
			}
		}
	})
	t.Run("processMutationLists faults", func(t *testing.T) {
		_, err := client.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{Key: srv.Key})
		wantFault(t, err, soap.FaultClient, "mutationsList is empty")
		_, err = client.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{Key: srv.Key, ReportTypeInt: 9, MutationsList: lists})
		wantFault(t, err, soap.FaultClient, "")
		_, err = client.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{Key: srv.Key, MutationsList: [][][]string{{{"a"}, {"b"}, {"c"}, {"d"}}}})
		wantFault(t, err, soap.FaultClient, "at most 3")
	})
	t.Run("processSequences overload 2 (one report)", func(t *testing.T) {
		resp, err := client.ProcessSequences1(ctx, &soapapi.ProcessSequencesRequest1{
			Key: srv.Key, InAlgorithmInterface: 1, Algorithm: int32(resistance.AlgorithmRega), ReportName: "client test", InputData: inputData,
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmRega, ReportType: 1, ReportName: "client test"})
		if err != nil {
			t.Fatal(err)
		}
		if got := atReportTime(resp.ProcessSequencesReturn); got != want {
			t.Errorf("report differs from the engine's:\n%.400s\nwant\n%.400s", got, want)
		}
		_, err = client.ProcessSequences1(ctx, &soapapi.ProcessSequencesRequest1{Key: srv.Key, Algorithm: 7, InputData: inputData})
		wantFault(t, err, soap.FaultClient, "userSubmittedAlgorithm is empty")
		_, err = client.ProcessSequences1(ctx, &soapapi.ProcessSequencesRequest1{Key: srv.Key, Algorithm: int32(resistance.AlgorithmHIVDB)})
		wantFault(t, err, soap.FaultClient, "inputData is empty")
	})
	t.Run("processSequences overload 3 (array of reports)", func(t *testing.T) {
		resp, err := client.ProcessSequences2(ctx, &soapapi.ProcessSequencesRequest2{
			Key: srv.Key, InAlgorithmInterface: 0, Algorithm: int32(resistance.AlgorithmANRS), InputData: inputData,
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.MutationListReports(lists, ReportOptions{Algorithm: resistance.AlgorithmANRS, ReportType: 0})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ProcessSequencesReturn) != len(want) {
			t.Fatalf("%d reports, want %d", len(resp.ProcessSequencesReturn), len(want))
		}
		for i, r := range resp.ProcessSequencesReturn {
			s, ok := r.(string)
			if !ok || atReportTime(s) != want[i] {
				t.Errorf("report %d: %T %.300v\nwant\n%.300s", i, r, r, want[i])
			}
		}
		_, err = client.ProcessSequences2(ctx, &soapapi.ProcessSequencesRequest2{Key: srv.Key, Algorithm: int32(resistance.AlgorithmHIVDB), InputData: []any{[]any{"M41L"}}})
		wantFault(t, err, soap.FaultClient, "inputData item 1, gene 1")
	})
	t.Run("getScoringMatrix", func(t *testing.T) {
		resp, err := client.GetScoringMatrix(ctx, &soapapi.GetScoringMatrixRequest{Key: srv.Key})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetScoringMatrixReturn != engine.ScoringMatrix() {
			t.Errorf("scoring matrix differs from the engine's: %.300s", resp.GetScoringMatrixReturn)
		}
	})
	t.Run("sequence operations answer a report or a typed fault", func(t *testing.T) {
		// Sequence analysis is being built elsewhere: today these answer
		// a Server fault, later a report. Either way the client returns a
		// non-empty report string or a *soap.Fault with a code and text.
		check := func(name string, err error, report func() string) {
			t.Helper()
			if err == nil {
				if report() == "" {
					t.Errorf("%s: empty report", name)
				}
				return
			}
			var f *soap.Fault
			if !errors.As(err, &f) || (f.Code != soap.FaultServer && f.Code != soap.FaultClient) || f.String == "" {
				t.Errorf("%s: %v (%T), want a report or a Client/Server fault", name, err, err)
			}
		}
		const seq = "CCTCAGATCACTCTTTGGCAACGACCCCTCGTCACAATAAAGATAGGGGGGCAACTAAAGGAAGCTCTATTAGATACAGGAGCAGATGATACAGTATTAGAAGAAATGAATTTGCCAGGAAGATGGAAACCAAAAATGATAGGGGGAATTGGAGGTTTTATCAAAGTAAGACAGTATGATCAGATACTCATAGAAATCTGCGGACATAAAGCTATAGGTACAGTATTAGTAGGACCTACACCTGTCAACATAATTGGAAGAAATCTGTTGACTCAGATTGGCTGCACTTTAAATTTT"
		r0, err := client.ProcessSequences(ctx, &soapapi.ProcessSequencesRequest{Key: srv.Key, Sequence: []string{seq}})
		check("processSequences", err, func() string { return r0.ProcessSequencesReturn })
		r1, err := client.ProcessSequence(ctx, &soapapi.ProcessSequenceRequest{Key: srv.Key, Sequence: seq})
		check("processSequence", err, func() string { return r1.ProcessSequenceReturn })
		r2, err := client.ProcessSequencesInFasta(ctx, &soapapi.ProcessSequencesInFastaRequest{Key: srv.Key, SequencesInFasta: ">s1\n" + seq + "\n"})
		check("processSequencesInFasta", err, func() string { return r2.ProcessSequencesInFastaReturn })
		r3, err := client.ProcessSequencesString(ctx, &soapapi.ProcessSequencesStringRequest{Key: srv.Key, Sequences: seq})
		check("processSequencesString", err, func() string { return r3.ProcessSequencesStringReturn })
	})
	t.Run("invalid key report from every operation", func(t *testing.T) {
		const bad = "not-a-key"
		type call struct {
			name string
			do   func(c *soapapi.Client) (any, error)
		}
		calls := []call{
			{"processSequences", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequences(ctx, &soapapi.ProcessSequencesRequest{Key: bad, Sequence: []string{"ACGT"}})
			}},
			{"processSequences 2", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequences1(ctx, &soapapi.ProcessSequencesRequest1{Key: bad, Algorithm: 1, InputData: inputData})
			}},
			{"processSequences 3", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequences2(ctx, &soapapi.ProcessSequencesRequest2{Key: bad, Algorithm: 1, InputData: inputData})
			}},
			{"processSequence", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequence(ctx, &soapapi.ProcessSequenceRequest{Key: bad, Sequence: "ACGT"})
			}},
			{"processSequencesInFasta", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequencesInFasta(ctx, &soapapi.ProcessSequencesInFastaRequest{Key: bad, SequencesInFasta: ">a\nACGT\n"})
			}},
			{"processSequencesString", func(c *soapapi.Client) (any, error) {
				return c.ProcessSequencesString(ctx, &soapapi.ProcessSequencesStringRequest{Key: bad, Sequences: "ACGT"})
			}},
			{"getScoringMatrix", func(c *soapapi.Client) (any, error) {
				return c.GetScoringMatrix(ctx, &soapapi.GetScoringMatrixRequest{Key: bad})
			}},
			{"processMutationLists", func(c *soapapi.Client) (any, error) {
				return c.ProcessMutationLists(ctx, &soapapi.ProcessMutationListsRequest{Key: bad, MutationsList: lists})
			}},
		}
		for i, c := range calls {
			resp, err := c.do(soapapi.NewClient(srv.Endpoint, fromAddress(fmt.Sprintf("127.0.0.%d", 20+i))))
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			got := fmt.Sprint(resp)
			if !strings.Contains(got, InvalidKeyReport) {
				t.Errorf("%s: %s, want the invalid-key report", c.name, got)
			}
			if r, ok := resp.(*soapapi.ProcessSequencesResponse2); ok && (len(r.ProcessSequencesReturn) != 1 || r.ProcessSequencesReturn[0] != InvalidKeyReport) {
				t.Errorf("%s: %#v, want an array holding the invalid-key report", c.name, r.ProcessSequencesReturn)
			}
		}
	})
	t.Run("errors that are not SOAP faults", func(t *testing.T) {
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := client.GetScoringMatrix(canceled, &soapapi.GetScoringMatrixRequest{Key: srv.Key}); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled context: %v", err)
		}
		var httpErr *soap.HTTPError
		_, err := soapapi.NewClient(srv.URL+"/soap/Nope", nil).GetScoringMatrix(ctx, &soapapi.GetScoringMatrixRequest{Key: srv.Key})
		if !errors.As(err, &httpErr) || httpErr.StatusCode != http.StatusNotFound {
			t.Errorf("wrong endpoint: %v, want an HTTPError 404", err)
		}
		// A request namespace the server does not serve is a Client fault.
		_, err = client.WithRequestNamespace("urn:elsewhere").GetScoringMatrix(ctx, &soapapi.GetScoringMatrixRequest{Key: srv.Key})
		wantFault(t, err, soap.FaultClient, "unknown operation")
		// A response over the client's limit is refused, not truncated.
		_, err = client.WithMaxResponseBytes(100).GetScoringMatrix(ctx, &soapapi.GetScoringMatrixRequest{Key: srv.Key})
		if err == nil || !strings.Contains(err.Error(), "larger than 100 bytes") {
			t.Errorf("response limit: %v", err)
		}
		if _, err := client.GetScoringMatrix(ctx, nil); err == nil {
			t.Error("nil request accepted")
		}
	})
}

// TestGoClientDocExample checks that the Go example of docs/clients.md is
// mutationReport above, verbatim, and runs it against the real binary.
func TestGoClientDocExample(t *testing.T) {
	t.Parallel()
	block := testkit.MarkdownBlock(t, "docs/clients.md", "go", "")
	src, err := os.ReadFile("goclient_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), block) {
		t.Fatalf("the go block of docs/clients.md is not mutationReport in goclient_test.go:\n%s", block)
	}
	srv := startBinary(t)
	report, err := mutationReport(context.Background(), srv.Endpoint, srv.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := atReportTime(report), quickStartWant(t); got != want {
		t.Errorf("report differs from the engine's:\n%.400s", got)
	}
}
