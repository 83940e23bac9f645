/**
 * The reference host, by idea: {@code profile} (where a profile keeps its plugins, settings and
 * data, and a project's configuration), {@code host} (a running host: services in Guice, plugins
 * from PF4J, tools by skill), {@code cli} (the {@code harness} command line), {@code mcp} (the MCP
 * server over a host) and {@code demo} (the scripted demonstration). Arrows point one way: {@code
 * cli} uses {@code mcp}, {@code demo} and {@code host}; {@code mcp} and {@code demo} use {@code
 * host}; {@code host} uses {@code profile}.
 */
package dev.periscope.harness;
