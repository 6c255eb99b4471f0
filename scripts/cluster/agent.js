// Readiness of Galera nodes for HAProxy: one HTTP port per node, 200 when the node is Synced in the primary
// component (wsrep_local_state 4, wsrep_cluster_status Primary, wsrep_ready ON), else 503. Started by `npm run
// cluster -- up` as: node agent.js <httpPort>:<mysqlSocket> ...
'use strict';
const http = require('node:http');
const mysql = require('mysql2');

for (const spec of process.argv.slice(2)) {
  const [port, socketPath] = spec.split(':');
  const pool = mysql.createPool({ socketPath, user: 'root', connectionLimit: 1, connectTimeout: 1000 });
  http
    .createServer((req, res) => {
      pool.query(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_cluster_status', 'wsrep_ready')",
        (error, rows) => {
          if (error) {
            res.writeHead(503).end(`down: ${error.code || error.message}\n`);
            return;
          }
          const status = Object.fromEntries(rows.map((row) => [row.Variable_name, String(row.Value)]));
          const ok =
            status.wsrep_local_state === '4' &&
            status.wsrep_cluster_status === 'Primary' &&
            status.wsrep_ready === 'ON';
          res.writeHead(ok ? 200 : 503).end(`${JSON.stringify(status)}\n`);
        },
      );
    })
    .listen(Number(port), '127.0.0.1');
}
