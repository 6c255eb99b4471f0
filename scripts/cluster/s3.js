// An S3 API (s3rver) for the fleet on one machine, with the media bucket readable by anyone (as a public bucket):
// node s3.js <port> <directory> <bucket>
'use strict';
const S3rver = require('s3rver');

const [port, directory, bucket] = process.argv.slice(2);
new S3rver({ port: Number(port), address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] })
  .run()
  .then(({ port: listening }) => process.stdout.write(`s3rver on ${listening}\n`))
  .catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
