// Package purlapi is the oapi-codegen output for the PURL contract
// (api/purl.yaml): models, strict echo server interface, embedded spec and
// a Go client. Never edit purlapi.gen.go; change the contract and run
// go generate ./gen/purlapi/. respondgen writes respond.gen.go from both
// (the Respond adapter; see cmd/respondgen).
package purlapi

//go:generate go tool oapi-codegen -config ../../api/purl.cfg.yaml ../../api/purl.yaml
//go:generate go tool respondgen -spec ../../api/purl.yaml -types purlapi.gen.go -out respond.gen.go
