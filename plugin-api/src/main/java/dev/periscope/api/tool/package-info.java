/**
 * Tools and skills as a model sees them: a {@link dev.periscope.api.tool.Tool} is a descriptor
 * (name, description, the JSON Schema of its arguments, hints) and a call that returns a {@link
 * dev.periscope.api.tool.ToolResult}: content blocks, whether it failed, and structured JSON for
 * clients. Tools belong to skills a user switches on or off; a plugin registers them with the
 * {@link dev.periscope.api.tool.ToolRegistry}. A host may call tools from several threads at once,
 * each call with its agent session and cancellation.
 */
package dev.periscope.api.tool;
