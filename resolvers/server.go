package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/resolvers/generated"
)

// Config sets the limits and hooks of the GraphQL handler.
type Config struct {
	MaxDepth      int // deepest selection allowed; 12 when zero
	MaxComplexity int // highest complexity allowed; 1000 when zero
	MaxBodyBytes  int64
	Logger        *slog.Logger

	// Authenticate returns ctx carrying the caller identified by a raw API
	// key sent in a websocket connection_init payload. When nil, the
	// websocket caller is whoever the upgrade request's headers named.
	Authenticate func(ctx context.Context, rawKey string) (context.Context, error)

	// CheckOrigin decides whether a browser origin may open a websocket;
	// when nil every origin is accepted (API keys, not cookies, authenticate).
	CheckOrigin func(r *http.Request) bool
}

// NewHandler returns the /graphql handler: POST queries and mutations, and
// websocket subscriptions speaking graphql-transport-ws and graphql-ws.
func NewHandler(r *Resolver, cfg Config) http.Handler {
	if cfg.MaxDepth == 0 {
		cfg.MaxDepth = 12
	}
	if cfg.MaxComplexity == 0 {
		cfg.MaxComplexity = 1000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	checkOrigin := cfg.CheckOrigin
	if checkOrigin == nil {
		checkOrigin = func(*http.Request) bool { return true }
	}

	es := generated.NewExecutableSchema(generated.Config{Resolvers: r, Complexity: complexityRoot()})
	srv := handler.New(es)
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 15 * time.Second,
		InitTimeout:           10 * time.Second,
		Implementation: gorillaWS{upgrader: websocket.Upgrader{
			CheckOrigin:     checkOrigin,
			ReadBufferSize:  4096,
			WriteBufferSize: 4096,
		}},
		// The connection_ack carries no payload: echoing the init payload
		// would send the API key back over the socket (and into any log
		// of its frames).
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if cfg.Authenticate == nil {
				return ctx, nil, nil
			}
			key := rawKeyFromPayload(p)
			if key == "" {
				return ctx, nil, nil // headers of the upgrade request may have authenticated
			}
			authed, err := cfg.Authenticate(ctx, key)
			if err != nil {
				// graphql-transport-ws: reject with 4403 Forbidden.
				msg := graph.AsError(err).Message
				ctx = transport.WithWebsocketCloseCode(ctx, 4403)
				ctx = transport.AppendCloseReason(ctx, "Forbidden: "+msg)
				return ctx, nil, errors.New(msg)
			}
			return authed, nil, nil
		},
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(postTransport{maxBody: cfg.MaxBodyBytes})

	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(r.withUBOLoaders(ctx))
	})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(&limits{maxDepth: cfg.MaxDepth, maxComplexity: cfg.MaxComplexity})
	srv.SetErrorPresenter(presenter(cfg.Logger))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		cfg.Logger.ErrorContext(ctx, "panic in resolver", "request_id", graph.RequestID(ctx), "panic", v)
		return graph.Internal(errors.New("panic in resolver"))
	})
	return srv
}

// rawKeyFromPayload reads an API key from a connection_init payload, which
// carries it the way HTTP headers would: Authorization: Bearer, or X-Api-Key.
func rawKeyFromPayload(p transport.InitPayload) string {
	if auth := p.Authorization(); auth != "" {
		const prefix = "Bearer "
		if len(auth) > len(prefix) && (auth[:len(prefix)] == prefix || auth[:len(prefix)] == "bearer ") {
			return auth[len(prefix):]
		}
		return auth
	}
	for _, k := range []string{"X-Api-Key", "x-api-key", "apiKey"} {
		if v := p.GetString(k); v != "" {
			return v
		}
	}
	return ""
}

// complexityRoot returns the per-field complexity functions. Fields not
// named cost 1 plus their children (gqlgen's default).
func complexityRoot() generated.ComplexityRoot {
	var c generated.ComplexityRoot
	uboComplexity(&c)
	return c
}

// presenter maps errors to GraphQL errors: a *graph.Error keeps its message
// and gets extensions.code (and extensions.field when it names one); gqlgen's
// own parse, validation and variable errors become code "invalid" with the
// variable named; anything else is "internal error" with the request id,
// logged in full and never shown.
func presenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		var gqlErr *gqlerror.Error
		if errors.As(err, &gqlErr) && gqlErr.Err == nil {
			return presentProtocolError(gqlErr)
		}
		var ge *graph.Error
		if !errors.As(err, &ge) {
			ge = graph.Internal(err)
		}
		out := graphql.DefaultErrorPresenter(ctx, err)
		if ge.Code == graph.CodeInternal {
			id := graph.RequestID(ctx)
			log.ErrorContext(ctx, "internal error", "request_id", id, "err", err)
			out.Message = "internal error (request id " + id + ")"
		} else {
			out.Message = ge.Message
		}
		if out.Extensions == nil {
			out.Extensions = map[string]any{}
		}
		out.Extensions["code"] = string(ge.Code)
		field := ge.Field
		if field == "" {
			field = variablePath(out.Path)
		}
		if field == "" && ge.Code == graph.CodeInvalid && len(out.Path) >= 2 {
			// An argument that failed to unmarshal: the path is the field,
			// then the argument and any input-object fields within it.
			field = argumentPath(out.Path)
		}
		if field != "" {
			out.Extensions["field"] = field
		}
		if len(ge.Details) > 0 {
			out.Extensions["details"] = ge.Details
		}
		return out
	}
}

// presentProtocolError gives gqlgen's parse and validation errors the
// service's vocabulary: code "invalid", and the variable named as field.
func presentProtocolError(e *gqlerror.Error) *gqlerror.Error {
	out := *e
	ext := map[string]any{}
	for k, v := range e.Extensions {
		ext[k] = v
	}
	if c, ok := ext["code"].(string); ok && c != "" && c != string(graph.CodeInvalid) {
		ext["graphql_code"] = c
	}
	if _, ok := ext["code"]; !ok || ext["code"] != string(graph.CodeInternal) {
		ext["code"] = string(graph.CodeInvalid)
	}
	if f := variablePath(e.Path); f != "" {
		ext["field"] = f
	} else if _, ok := ext["field"]; !ok {
		ext["field"] = "query"
	}
	out.Extensions = ext
	return &out
}

// argumentPath returns "input.expiresAt" for the path
// ["createApiKey", "input", "expiresAt"].
func argumentPath(p ast.Path) string {
	return variablePath(append(ast.Path{ast.PathName("variable")}, p[1:]...))
}

// variablePath returns "input.expiresAt" for the path
// ["variable", "input", "expiresAt"] of a variable coercion error, and ""
// for any path that does not start at a variable.
func variablePath(p ast.Path) string {
	if len(p) < 2 || p[0] != ast.PathName("variable") {
		return ""
	}
	var b strings.Builder
	for i, el := range p[1:] {
		switch el := el.(type) {
		case ast.PathName:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(el))
		case ast.PathIndex:
			fmt.Fprintf(&b, "[%d]", int(el))
		}
	}
	return b.String()
}
