import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request } from 'express';

/** What the API needs to know of a request's origin: client address, scheme and Host. */
export interface RequestFacts {
  ip: string;
  protocol: string;
  host: string;
}

/**
 * Client address and scheme. Behind Express (a host app) its `trust proxy` setting decides; on a bare Node
 * request, forwarding headers are trusted from loopback proxies only (Express's `trust proxy: 'loopback'`).
 */
export function requestFacts(req: IncomingMessage): RequestFacts {
  const host = req.headers.host || 'localhost';
  const express = req as Partial<Request>;
  if (typeof express.app?.get === 'function')
    return { ip: express.ip ?? '', protocol: express.protocol ?? 'http', host };
  const socket = req.socket as Partial<TLSSocket>;
  const own = socket.encrypted ? 'https' : 'http';
  const remote = socket.remoteAddress ?? '';
  if (!isLoopback(remote)) return { ip: remote, protocol: own, host };
  const proto = singleHeader(req, 'x-forwarded-proto');
  const protocol = proto ? proto.split(',')[0].trim() : own;
  const forwarded = singleHeader(req, 'x-forwarded-for');
  if (!forwarded) return { ip: remote, protocol, host };
  // The client is the nearest address in the chain that is not a trusted (loopback) proxy.
  const chain = [
    remote,
    ...forwarded
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .reverse(),
  ];
  const ip = chain.find((address) => !isLoopback(address)) ?? chain[chain.length - 1];
  return { ip, protocol, host };
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

function singleHeader(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}
