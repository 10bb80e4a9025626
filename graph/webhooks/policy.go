package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/tradecompliance/compliance/graph"
)

// MaxURLLength bounds a subscription's URL.
const MaxURLLength = 2048

// Resolver resolves a host name to its addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Policy is where deliveries may go. By default only HTTPS URLs whose every
// address is public; AllowPrivate (WEBHOOK_ALLOW_PRIVATE_TARGETS, for
// development and tests) also accepts http and non-public addresses.
type Policy struct {
	AllowPrivate bool
}

// blockedPrefixes are the address ranges a delivery never connects to:
// loopback, private, CGNAT, link-local (cloud metadata at 169.254.169.254
// among them), multicast, documentation, benchmarking and reserved ranges,
// IPv6 unique-local, site-local and link-local. IPv4-mapped, NAT64 and
// 6to4 addresses are checked by the IPv4 address they embed.
var blockedPrefixes = mustPrefixes(
	"0.0.0.0/8",          // "this network"
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local: AWS/GCP/Azure/OpenStack metadata, ECS task metadata
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments (Oracle metadata 192.0.0.192)
	"192.0.2.0/24",       // TEST-NET-1
	"192.88.99.0/24",     // 6to4 relay anycast
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // TEST-NET-2
	"203.0.113.0/24",     // TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, and 255.255.255.255 broadcast
	"168.63.129.16/32",   // Azure WireServer: a public address that is metadata
	"::/128",             // unspecified
	"::1/128",            // loopback
	"100::/64",           // discard
	"2001::/23",          // IETF protocol assignments (Teredo among them)
	"2001:db8::/32",      // documentation
	"fc00::/7",           // unique local (AWS IPv6 metadata fd00:ec2::254 among them)
	"fe80::/10",          // link-local
	"fec0::/10",          // site-local (deprecated)
	"ff00::/8",           // multicast
	"64:ff9b:1::/48",     // local-use NAT64
	"3fff::/20",          // documentation (RFC 9637)
	"5f00::/16",          // SRv6 SIDs
	"2001:10::/28",       // ORCHID
	"2620:4f:8000::/48",  // AS112-v6
	"2001:20::/28",       // ORCHIDv2
	"::ffff:0:0:0/96",    // SIIT
	"100.100.100.200/32", // Alibaba metadata (inside CGNAT; named for clarity)
)

// blockedHosts are names refused before any lookup.
var blockedHosts = []string{"localhost", "metadata", "metadata.google.internal", "instance-data", "metadata.azure.internal"}

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// ErrBlockedAddress is the cause of every refusal of a target address.
var ErrBlockedAddress = errors.New("webhook target address is not public")

// CheckAddr returns nil when a delivery may connect to a, and an error
// wrapping ErrBlockedAddress otherwise.
func (p Policy) CheckAddr(a netip.Addr) error {
	if p.AllowPrivate {
		return nil
	}
	if !publicAddr(a) {
		return fmt.Errorf("%w: %s is in a non-public range", ErrBlockedAddress, a)
	}
	return nil
}

// publicAddr reports whether a is a globally routable unicast address.
func publicAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("")
	if a.Is4In6() {
		return publicAddr(a.Unmap())
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && allZero(b[4:12]): // NAT64 64:ff9b::/96
			return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case b[0] == 0x20 && b[1] == 0x02: // 6to4 2002::/16 embeds an IPv4 address
			return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
		if allZero(b[:12]) { // IPv4-compatible ::a.b.c.d (deprecated)
			return false
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsGlobalUnicast() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ParseURL checks a subscription URL's form: absolute https (http too when
// private targets are allowed), a host, no credentials, no fragment, at most
// MaxURLLength bytes. It does not resolve the host.
func (p Policy) ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, graph.Invalid("url", "url is required")
	}
	if len(raw) > MaxURLLength {
		return nil, graph.Invalid("url", "url must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return nil, graph.Invalid("url", "url must be an absolute https URL such as https://hooks.example.com/compliance")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !p.AllowPrivate {
			return nil, graph.Invalid("url", "url must use https")
		}
	default:
		return nil, graph.Invalid("url", "url must use https")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.User != nil {
		return nil, graph.Invalid("url", "url must not carry credentials (user:password@); put a token in the path or query instead")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, graph.Invalid("url", "url must not have a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return nil, graph.Invalid("url", "url must name a host")
	}
	if port := u.Port(); port != "" {
		if n, ok := parsePort(port); !ok || n == 0 {
			return nil, graph.Invalid("url", "url has an invalid port")
		}
	}
	if !p.AllowPrivate {
		if blockedHost(host) {
			return nil, graph.Invalid("url", "url must point to a public address")
		}
		if a, err := netip.ParseAddr(host); err == nil && !publicAddr(a) {
			return nil, graph.Invalid("url", "url must point to a public address")
		}
	}
	return u, nil
}

func parsePort(s string) (int, bool) {
	if len(s) > 5 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 65535
}

func blockedHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, b := range blockedHosts {
		if h == b {
			return true
		}
	}
	return strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".internal") || strings.HasSuffix(h, ".local")
}

// Resolve returns the addresses a delivery to host may connect to: every
// address host resolves to must pass CheckAddr (one non-public answer
// refuses them all, so a name cannot mix a public and a private address to
// win a race). It fails with an error wrapping ErrBlockedAddress, or the
// lookup's error.
func (p Policy) Resolve(ctx context.Context, r Resolver, host string) ([]netip.Addr, error) {
	if !p.AllowPrivate && blockedHost(host) {
		return nil, fmt.Errorf("%w: host %s", ErrBlockedAddress, host)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if err := p.CheckAddr(a); err != nil {
			return nil, err
		}
		return []netip.Addr{a}, nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("no address for %s", host)
	}
	for _, a := range addrs {
		if err := p.CheckAddr(a); err != nil {
			return nil, err
		}
	}
	return addrs, nil
}

// CheckURL validates a subscription URL's form and, unless private targets
// are allowed, that its host resolves only to public addresses. It fails
// with invalid naming url.
func (p Policy) CheckURL(ctx context.Context, r Resolver, raw string) (*url.URL, error) {
	u, err := p.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if p.AllowPrivate || r == nil {
		return u, nil
	}
	if _, err := p.Resolve(ctx, r, u.Hostname()); err != nil {
		if errors.Is(err, ErrBlockedAddress) {
			return nil, graph.Invalid("url", "url must point to a public address; %s resolves to a non-public one", u.Hostname())
		}
		return nil, graph.Invalid("url", "url host %s does not resolve", u.Hostname())
	}
	return u, nil
}
