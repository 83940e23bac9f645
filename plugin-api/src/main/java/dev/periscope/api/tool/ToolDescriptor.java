package dev.periscope.api.tool;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the model is told about a tool: its name ({@code ^[a-z][a-z0-9_]{0,63}$}), a description,
 * the JSON Schema (2020-12) of its arguments as JSON text, and its hints.
 */
public record ToolDescriptor(String name, String description, String inputSchema, ToolHints hints) {
  private static final Pattern NAME = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");

  public ToolDescriptor {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name must match " + NAME + ": " + name);
    }
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    Objects.requireNonNull(hints, "hints");
  }
}
