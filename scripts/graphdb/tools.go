//go:build tools

// Package graphdb pins the NornicDB Bolt server used for development and CI.
// It is a separate module so that the service's go.mod stays free of its
// dependencies; scripts/lib/graphdb.sh builds the server from here.
package graphdb

import _ "github.com/orneryd/nornicdb/cmd/nornicdb"
