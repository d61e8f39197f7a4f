// Package embedapi is generated from api/embed.yaml by oapi-codegen: the
// strict echo server interface, models, the embedded spec and a client.
package embedapi

//go:generate go tool oapi-codegen -config ../../api/embed.cfg.yaml ../../api/embed.yaml
//go:generate go tool respondgen -spec ../../api/embed.yaml -types embedapi.gen.go -out respond.gen.go
