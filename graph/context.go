package graph

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id, for logs and for the
// "internal error" message a client is shown.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
