package jsonapireq

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// Query is what an endpoint supports of the query string.
type Query struct {
	// Params are the endpoint's own parameters (from, to; include when the
	// contract declares it, which is still checked against
	// AlwaysIncluded). JSON:API 1.1
	// asks implementation-specific names to hold a non a–z character; the
	// seed's from/to predate that and stay.
	Params []string
	// AlwaysIncluded are the relationship paths the endpoint includes in
	// every response: include naming only these is accepted (the response
	// is the same either way).
	AlwaysIncluded []string
}

// reserved are JSON:API's query parameter families; this service supports
// none of them beyond include of what it always includes.
var reserved = map[string]string{
	"include": "",
	"sort":    "sorting is not supported",
	"page":    "pagination is not supported: every collection is returned whole",
	"fields":  "sparse fieldsets are not supported: every field is returned",
	"filter":  "filtering is not supported",
}

// CheckQuery refuses, with 400 naming the parameter, a query parameter the
// endpoint does not support that JSON:API 1.1 says must be refused: any
// member of the include, sort, page, fields or filter families the
// endpoint does not support, and any other name made only of a–z (names
// with another character are implementation-specific and, unknown, are
// ignored as the specification allows). Parameters are checked in sorted
// order so the error is the same for the same query.
func CheckQuery(q url.Values, spec Query) error {
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names)
	own := map[string]bool{}
	for _, p := range spec.Params {
		own[p] = true
	}
	for _, name := range names {
		family, _, bracket := strings.Cut(name, "[")
		if own[name] && reserved[family] == "" && family != "include" {
			continue
		}
		if reason, ok := reserved[family]; ok {
			if family == "include" && !bracket {
				if err := checkInclude(q[name], spec.AlwaysIncluded); err != nil {
					return err
				}
				continue
			}
			if family == "include" {
				reason = "include takes no brackets"
			}
			return &Error{Status: http.StatusBadRequest, Parameter: name, Message: fmt.Sprintf("query parameter %q: %s", name, reason)}
		}
		if allLowerAZ(name) {
			return &Error{Status: http.StatusBadRequest, Parameter: name, Message: fmt.Sprintf("query parameter %q is not supported here%s", name, supportedList(spec))}
		}
	}
	return nil
}

func checkInclude(values []string, always []string) error {
	ok := map[string]bool{}
	for _, a := range always {
		ok[a] = true
	}
	for _, v := range values {
		for _, path := range strings.Split(v, ",") {
			path = strings.TrimSpace(path)
			if path == "" {
				continue
			}
			if !ok[path] {
				what := "this resource includes no related resources"
				if len(always) > 0 {
					what = fmt.Sprintf("this resource always includes %s and nothing else", strings.Join(quoteAll(always), ", "))
				}
				return &Error{Status: http.StatusBadRequest, Parameter: "include", Message: fmt.Sprintf("query parameter \"include\": %q cannot be included: %s", path, what)}
			}
		}
	}
	return nil
}

func supportedList(spec Query) string {
	if len(spec.Params) == 0 {
		return " (this endpoint takes no query parameters)"
	}
	return " (supported: " + strings.Join(quoteAll(spec.Params), ", ") + ")"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func allLowerAZ(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
