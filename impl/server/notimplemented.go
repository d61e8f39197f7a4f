package server

import (
	"context"
	"net/http"
)

// NotImplemented is a service whose every request answers 501 with message.
// It stands in for a service until its implementation lands.
func NotImplemented(name, message string) Service {
	return notImplemented{name: name, message: message}
}

type notImplemented struct{ name, message string }

func (n notImplemented) Name() string                { return n.name }
func (n notImplemented) Ready(context.Context) error { return nil }
func (n notImplemented) Close() error                { return nil }
func (n notImplemented) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, n.message, http.StatusNotImplemented)
	})
}
