package server

import (
	"context"
	"log/slog"
)

// WithRequestIDs wraps a log handler so every record logged with a request's
// context (logger.InfoContext(r.Context(), …), as services and apiserve do)
// carries that request's request_id, and lines a handler writes can be
// matched with the request's own log line.
func WithRequestIDs(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ next slog.Handler }

func (h requestIDHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h requestIDHandler) Handle(ctx context.Context, rec slog.Record) error {
	if id := RequestID(ctx); id != "" {
		has := false
		rec.Attrs(func(a slog.Attr) bool {
			has = a.Key == "request_id"
			return !has
		})
		if !has {
			rec = rec.Clone()
			rec.AddAttrs(slog.String("request_id", id))
		}
	}
	return h.next.Handle(ctx, rec)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.next.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.next.WithGroup(name)}
}
