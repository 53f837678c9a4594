// The reference MCP server (server-everything) over Streamable HTTP, bound to 127.0.0.1 on a port
// the system picks (it binds every interface, on PORT, by itself), saying where on stdout:
// "listening on http://127.0.0.1:PORT/mcp".
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const { port } = this.address();
    console.log(`listening on http://127.0.0.1:${port}/mcp`);
  });
  const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  return listen.call(this, 0, '127.0.0.1', callback);
};
process.argv.push('streamableHttp');
await import('@modelcontextprotocol/server-everything/dist/index.js');
