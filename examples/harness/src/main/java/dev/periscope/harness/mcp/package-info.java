/**
 * {@code harness mcp}: a host's agent tools served over the Model Context Protocol with the
 * official Java SDK, on standard input and output ({@link dev.periscope.harness.mcp.LineTransport}:
 * a bad line gets a JSON-RPC error, not the end of the session) or, with {@code --http}, to many
 * clients over Streamable HTTP ({@link dev.periscope.harness.mcp.McpHttpServer}, a session each);
 * {@link dev.periscope.harness.mcp.ToolServer} maps tools and results to the SDK's.
 */
package dev.periscope.harness.mcp;
