/**
 * {@code harness mcp}: a host's agent tools served over the Model Context Protocol on standard
 * input and output with the official Java SDK; {@link dev.periscope.harness.mcp.LineTransport} is
 * the transport (a bad line gets a JSON-RPC error, not the end of the session), {@link
 * dev.periscope.harness.mcp.ToolServer} maps tools and results to the SDK's.
 */
package dev.periscope.harness.mcp;
