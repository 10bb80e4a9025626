package resolvers

import (
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// gorillaWS adapts github.com/gorilla/websocket to gqlgen's websocket
// transport, which negotiates graphql-transport-ws and graphql-ws.
type gorillaWS struct {
	upgrader websocket.Upgrader
}

var _ transport.WebsocketImplementation = gorillaWS{}

// Accept upgrades the request; it fails (having answered the client) when the
// request is not a valid websocket handshake or its origin is refused.
func (g gorillaWS) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	up := g.upgrader
	up.Subprotocols = slices.Clone(up.Subprotocols)
	for _, p := range opts.Subprotocols {
		if !slices.Contains(up.Subprotocols, p) {
			up.Subprotocols = append(up.Subprotocols, p)
		}
	}
	c, err := up.Upgrade(w, r, opts.ResponseHeader)
	if err != nil {
		return nil, err
	}
	return &gorillaConn{c: c}, nil
}

// gorillaConn serialises writes: gorilla allows one concurrent writer.
type gorillaConn struct {
	c  *websocket.Conn
	mu sync.Mutex
}

var (
	_ transport.WebsocketConn          = (*gorillaConn)(nil)
	_ transport.WebsocketReadLimiter   = (*gorillaConn)(nil)
	_ transport.WebsocketReadDeadliner = (*gorillaConn)(nil)
)

func (g *gorillaConn) Close() error { return g.c.Close() }

func (g *gorillaConn) NextReader() (int, io.Reader, error) {
	t, r, err := g.c.NextReader()
	if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseNoStatusReceived) {
		return t, nil, transport.ErrWebsocketClosed
	}
	return t, r, err
}

func (g *gorillaConn) WriteJSON(v any) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return g.c.WriteJSON(v)
}

func (g *gorillaConn) WriteClose(code int, message string) error {
	msg := websocket.FormatCloseMessage(code, message)
	return g.c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
}

func (g *gorillaConn) Subprotocol() string { return g.c.Subprotocol() }

func (g *gorillaConn) SetReadLimit(limit int64) { g.c.SetReadLimit(limit) }

func (g *gorillaConn) SetReadDeadline(t time.Time) error { return g.c.SetReadDeadline(t) }
