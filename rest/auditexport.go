package rest

import (
	"bufio"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/tradecompliance/compliance/graph"
)

// auditRowJSON is an audit row as the export shows it.
type auditRowJSON struct {
	RequestID      string  `json:"request_id"`
	Route          string  `json:"route"`
	Method         string  `json:"method"`
	Scope          *string `json:"scope"`
	MemberID       *string `json:"member_id"`
	KeyID          *string `json:"key_id"`
	ResponseStatus int     `json:"response_status"`
	ResponseSHA256 string  `json:"response_sha256"`
	ClientIP       string  `json:"client_ip"`
	UserAgent      string  `json:"user_agent"`
	DurationMS     float64 `json:"duration_ms"`
	LoggedAt       string  `json:"logged_at"`
	RowHash        string  `json:"row_hash"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAuditJSON(r graph.AuditRow) auditRowJSON {
	return auditRowJSON{
		RequestID: r.RequestID, Route: r.Route, Method: r.Method, Scope: strPtr(r.Scope),
		MemberID: strPtr(r.MemberID), KeyID: strPtr(r.KeyID), ResponseStatus: r.ResponseStatus,
		ResponseSHA256: hex.EncodeToString(r.ResponseSHA256), ClientIP: r.ClientIP, UserAgent: r.UserAgent,
		DurationMS: r.DurationMS, LoggedAt: r.LoggedAt.UTC().Format(graph.AuditTimeLayout),
		RowHash: hex.EncodeToString(r.RowHash),
	}
}

// parseAuditParams reads the query of GET /api/v1/audit; range checks are
// graph.AuditPageRequest's.
func parseAuditParams(r *http.Request) (graph.AuditPageRequest, string, error) {
	q := r.URL.Query()
	p := graph.AuditPageRequest{Days: 90, PageSize: 10000}
	format := "json"
	intParam := func(name string, dst *int) error {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return graph.Invalid(name, "%s must be an integer", name)
			}
			*dst = n
		}
		return nil
	}
	if err := intParam("days", &p.Days); err != nil {
		return p, format, err
	}
	if err := intParam("page_size", &p.PageSize); err != nil {
		return p, format, err
	}
	if f := q.Get("format"); f != "" {
		switch f {
		case "json", "csv", "summary":
			format = f
		default:
			return p, format, graph.Invalid("format", "format must be json, csv or summary")
		}
	}
	if c := q.Get("cursor"); c != "" {
		t, err := time.Parse(time.RFC3339Nano, c)
		if err != nil {
			return p, format, graph.Invalid("cursor", "cursor must be the logged_at of the last row of the previous page (RFC 3339)")
		}
		p.Cursor = &t
	}
	return p, format, p.Validate()
}

// auditExport streams the caller's member's audit rows: GET /api/v1/audit.
// Rows come newest first; a page holds page_size rows strictly older than
// the cursor, and next_cursor is null on the last page.
func (s *server) auditExport(w http.ResponseWriter, r *http.Request) error {
	p, format, err := parseAuditParams(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c := graph.CallerFrom(ctx)
	now := time.Now().UTC()

	if format == "summary" {
		counts, total, err := graph.SummarizeAudit(ctx, s.Audit, s.Limiter, c, p.Days, now)
		if err != nil {
			return err
		}
		writeData(w, http.StatusOK, map[string]any{"days": p.Days, "total": total, "scopes": counts})
		return nil
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="audit.csv"`)
		cw := csv.NewWriter(bw)
		cw.Write([]string{"request_id", "route", "method", "response_status", "duration_ms", "client_ip"})
		_, next, err := graph.ExportAudit(ctx, s.Audit, c.Member.ID, p, now, func(row graph.AuditRow) error {
			return cw.Write([]string{row.RequestID, row.Route, row.Method, strconv.Itoa(row.ResponseStatus),
				strconv.FormatFloat(row.DurationMS, 'f', 3, 64), row.ClientIP})
		})
		if err != nil {
			return err
		}
		cw.Flush()
		if next != nil {
			w.Header().Set("X-Next-Cursor", next.UTC().Format(graph.AuditTimeLayout)) // the spool sends headers last
		}
		return bw.Flush()
	}

	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	bw.WriteString(`{"ok":true,"data":{"days":` + strconv.Itoa(p.Days) + `,"rows":[`)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	count, next, err := graph.ExportAudit(ctx, s.Audit, c.Member.ID, p, now, func(row graph.AuditRow) error {
		if n++; n > 1 {
			bw.WriteByte(',')
		}
		return enc.Encode(toAuditJSON(row))
	})
	if err != nil {
		return err
	}
	nc := []byte("null")
	if next != nil {
		nc, _ = json.Marshal(next.UTC().Format(graph.AuditTimeLayout))
	}
	bw.WriteString(`],"count":` + strconv.Itoa(count) + `,"next_cursor":` + string(nc) + "}}\n")
	return bw.Flush()
}
