package soap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// EncodeRequest writes the rpc request of op: a wrapper element named after
// the operation in namespace ns holding one typed element per input part,
// named after the part, so that the server tells the overloads apart by
// their part names. args holds one value per input part, of the part's Go
// type.
func EncodeRequest(buf *bytes.Buffer, op *Operation, ns string, args []any) error {
	if len(args) != len(op.Input.Parts) {
		return fmt.Errorf("%s (%s): %d values for %d input parts", op.Name, op.Input.Name, len(args), len(op.Input.Parts))
	}
	buf.WriteString(envelopeOpen)
	buf.WriteString(`<ns1:`)
	buf.WriteString(op.Name)
	buf.WriteString(` soapenv:encodingStyle="` + EncodingNamespace + `" xmlns:ns1="`)
	escapeAttr(buf, ns)
	buf.WriteString(`">`)
	for i, p := range op.Input.Parts {
		if err := encodeValue(buf, p.Name, p.Type, reflect.ValueOf(args[i]), 0); err != nil {
			return fmt.Errorf("%s (%s), part %s: %w", op.Name, op.Input.Name, p.Name, err)
		}
	}
	buf.WriteString(`</ns1:`)
	buf.WriteString(op.Name)
	buf.WriteString(`>`)
	buf.WriteString(envelopeClose)
	return nil
}

// DecodeResponse reads the response envelope of op and returns one value
// per output part, of the part's Go type. A fault in the envelope is
// returned as a *Fault carrying its code (the local part of faultcode:
// Client, Server, …), string and detail text; any other error means the
// envelope is not a response of op.
func DecodeResponse(r io.Reader, op *Operation, limits Limits) ([]any, error) {
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = defaultLimits.MaxDepth
	}
	if limits.MaxElements <= 0 {
		limits.MaxElements = defaultLimits.MaxElements
	}
	root, err := parseTree(r, limits)
	if err != nil {
		return nil, fmt.Errorf("response of %s: %w", op.Name, err)
	}
	if root.name.Space != EnvelopeNamespace || root.name.Local != "Envelope" {
		return nil, fmt.Errorf("response of %s: root element {%s}%s is not a SOAP 1.1 Envelope", op.Name, root.name.Space, root.name.Local)
	}
	var body *node
	for _, c := range root.children {
		if c.name.Space == EnvelopeNamespace && c.name.Local == "Body" {
			body = c
			break
		}
	}
	if body == nil || len(body.children) == 0 {
		return nil, fmt.Errorf("response of %s: the envelope has no Body content", op.Name)
	}
	ids := map[string]*node{}
	indexIDs(body, ids)
	wrapper := body.children[0]
	if wrapper.name.Space == EnvelopeNamespace && wrapper.name.Local == "Fault" {
		return nil, decodeFault(wrapper)
	}
	if wrapper.name.Local != op.Name+"Response" {
		return nil, fmt.Errorf("response of %s: got element %s, want %sResponse", op.Name, wrapper.name.Local, op.Name)
	}
	goTypes := map[*Type]reflect.Type{}
	var register func(t *Type) error
	register = func(t *Type) error {
		gt, err := t.GoType()
		if err != nil {
			return err
		}
		goTypes[t] = gt
		if t.Elem != nil {
			return register(t.Elem)
		}
		return nil
	}
	for _, p := range op.Output.Parts {
		if err := register(p.Type); err != nil {
			return nil, fmt.Errorf("response of %s, part %s: %w", op.Name, p.Name, err)
		}
	}
	if limits.MaxTextBytes <= 0 {
		limits.MaxTextBytes = DefaultMaxResponseBytes
	}
	dec := &valueDecoder{ids: ids, goTypes: goTypes, budget: limits.MaxElements, textBudget: limits.MaxTextBytes, maxText: limits.MaxTextBytes, memo: map[memoKey]memoEntry{}}
	out := make([]any, len(op.Output.Parts))
	for i, p := range op.Output.Parts {
		// By name, as the parts are named; by position for servers that
		// name return elements otherwise (Axis's "return" spelling).
		var el *node
		for _, c := range wrapper.children {
			if c.name.Local == p.Name {
				el = c
				break
			}
		}
		if el == nil && len(wrapper.children) == len(op.Output.Parts) {
			el = wrapper.children[i]
		}
		if el == nil {
			return nil, fmt.Errorf("response of %s: part %s is missing", op.Name, p.Name)
		}
		v, err := dec.decode(el, p.Type, 0)
		if err != nil {
			return nil, fmt.Errorf("response of %s, part %s: %w", op.Name, p.Name, err)
		}
		out[i] = v.Interface()
	}
	return out, nil
}

// decodeFault reads a soapenv:Fault element.
func decodeFault(n *node) *Fault {
	f := &Fault{}
	for _, c := range n.children {
		switch c.name.Local {
		case "faultcode":
			code := strings.TrimSpace(c.text)
			if _, local, ok := strings.Cut(code, ":"); ok {
				code = local
			}
			f.Code = FaultCode(code)
		case "faultstring":
			f.String = c.text
		case "detail":
			f.Detail = strings.TrimSpace(leafText(c))
		}
	}
	return f
}

// leafText joins the text of n's leaf elements (a fault detail is free-form).
func leafText(n *node) string {
	if !n.hasChildren() {
		return n.text
	}
	parts := make([]string, 0, len(n.children))
	for _, c := range n.children {
		if t := strings.TrimSpace(leafText(c)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// DefaultMaxResponseBytes bounds a response body a Caller reads when none
// is configured: a mutation-list call may return one report per sample,
// and the largest requests (8 MiB) can ask for hundreds.
const DefaultMaxResponseBytes = 64 << 20

// HTTPError is a response that is not a SOAP envelope: the status and the
// start of the body, as the server sent them (a 405 for a wrong method, a
// 413 from a proxy, a 404 for a wrong endpoint).
type HTTPError struct {
	StatusCode int
	Body       string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("soap: HTTP %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Body)
}

// Caller sends rpc/encoded calls to one endpoint over HTTP.
type Caller struct {
	// Endpoint is the SOAP endpoint URL.
	Endpoint string
	// Namespace is the namespace of request wrapper elements.
	Namespace string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// MaxResponseBytes bounds a response body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Limits bound the parsed response; zero fields take defaults.
	Limits Limits
}

// Call POSTs the request of op with args and returns the output parts. A
// SOAP fault is returned as a *Fault, a non-SOAP answer as an *HTTPError;
// transport errors are wrapped with the operation's name.
func (c *Caller) Call(ctx context.Context, op *Operation, args []any) ([]any, error) {
	var buf bytes.Buffer
	if err := EncodeRequest(&buf, op, c.Namespace, args); err != nil {
		return nil, fmt.Errorf("soap: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, &buf)
	if err != nil {
		return nil, fmt.Errorf("soap: %s: %w", op.Name, err)
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	// SOAP 1.1 requires the header; rpc/encoded services key on the body.
	req.Header.Set("SOAPAction", `""`)
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("soap: %s: %w", op.Name, err)
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("soap: %s: reading the response: %w", op.Name, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("soap: %s: response larger than %d bytes", op.Name, limit)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	isXML := mediaType == "text/xml" || mediaType == "application/xml" || mediaType == "application/soap+xml"
	// SOAP 1.1 over HTTP: 200 for a response, 500 for a fault.
	if !isXML || (resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError) {
		return nil, &HTTPError{StatusCode: resp.StatusCode, Body: clip200(body)}
	}
	out, err := DecodeResponse(bytes.NewReader(body), op, c.Limits)
	if err != nil {
		var f *Fault
		if errors.As(err, &f) {
			return nil, f
		}
		return nil, fmt.Errorf("soap: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPError{StatusCode: resp.StatusCode, Body: clip200(body)}
	}
	return out, nil
}

func clip200(b []byte) string {
	const max = 200
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
