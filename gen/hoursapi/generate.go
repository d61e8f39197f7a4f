// Package hoursapi is generated from api/hours.yaml by oapi-codegen: the
// strict echo server interface, models, the embedded document and a client.
package hoursapi

//go:generate go tool oapi-codegen -config ../../api/hours.cfg.yaml ../../api/hours.yaml
//go:generate go tool respondgen -spec ../../api/hours.yaml -types hoursapi.gen.go -out respond.gen.go
