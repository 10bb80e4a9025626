// Bootstrap for the embedded GraphiQL page (resolvers/ide). Loaded as a
// same-origin script so the page's Content-Security-Policy needs no inline
// script. Expects the React 18 UMD globals (React, ReactDOM) and the GraphiQL 3
// UMD global (GraphiQL) to be loaded first.
(function () {
  'use strict';

  var KEY_HINT = '<paste your key>';
  var DEFAULT_HEADERS = JSON.stringify({ Authorization: 'Bearer ' + KEY_HINT }, null, 2);
  var DEFAULT_QUERY = [
    '# Compliance GraphQL API',
    '#',
    '# 1. Put your API key in the Headers tab below:',
    '#      {"Authorization": "Bearer <key>"}',
    '#    or {"X-Api-Key": "<key>"}',
    '# 2. Reload the schema (circular arrows, bottom left)',
    '#    so the editor can autocomplete.',
    '# 3. Run the query (play button or Ctrl+Enter).',
    '#',
    '# Subscriptions use a websocket to the same endpoint',
    '# and send these headers in connection_init.',
    '',
    '{',
    '  _service {',
    '    sdl',
    '  }',
    '}',
    ''
  ].join('\n');

  var container = document.getElementById('graphiql');
  if (!container) {
    return;
  }

  function showMessage(text, isError) {
    container.textContent = text;
    container.className = 'ide-message' + (isError ? ' ide-error' : '');
  }

  if (!window.React || !window.ReactDOM || !window.GraphiQL || !window.GraphiQL.createFetcher) {
    showMessage('GraphiQL failed to load: the React, ReactDOM or GraphiQL script is missing.', true);
    return;
  }

  // The endpoint comes from the server (data-endpoint) and may be a path or an
  // absolute URL; subscriptions use the same URL with ws:// or wss://.
  var httpURL = new URL(container.getAttribute('data-endpoint') || '/graphql', window.location.href);
  httpURL.hash = '';
  var wsURL = new URL(httpURL.href);
  wsURL.protocol = httpURL.protocol === 'https:' ? 'wss:' : 'ws:';

  // createFetcher sends the Headers editor's values on HTTP requests and, for
  // subscriptions, as the graphql-transport-ws connection_init payload (the
  // graphql-ws client is bundled in GraphiQL's UMD build).
  var baseFetcher = window.GraphiQL.createFetcher({
    url: httpURL.href,
    subscriptionUrl: wsURL.href
  });

  // Never send the placeholder hint as a credential.
  function fetcher(params, opts) {
    if (opts && opts.headers && typeof opts.headers === 'object') {
      var headers = {};
      var dropped = false;
      Object.keys(opts.headers).forEach(function (name) {
        var value = opts.headers[name];
        if (typeof value === 'string' && value.indexOf(KEY_HINT) !== -1) {
          dropped = true;
        } else {
          headers[name] = value;
        }
      });
      if (dropped) {
        opts = Object.assign({}, opts, { headers: headers });
      }
    }
    return baseFetcher(params, opts);
  }

  // Drop the "Loading…" placeholder and its styling before React takes over.
  container.className = '';
  container.textContent = '';
  window.ReactDOM.createRoot(container).render(
    window.React.createElement(window.GraphiQL, {
      fetcher: fetcher,
      defaultQuery: DEFAULT_QUERY,
      defaultHeaders: DEFAULT_HEADERS,
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      // Keep API keys out of localStorage.
      shouldPersistHeaders: false
    })
  );
})();
