package dev.periscope.api.tool;

import java.util.List;
import java.util.Map;

/**
 * A tool's answer: ordered content blocks, whether it is a failure the model should see, and
 * optional structured JSON (maps, lists, strings, numbers, booleans) for hosts and clients that
 * read it.
 */
public record ToolResult(List<Content> content, boolean isError, Map<String, Object> structured) {
  public ToolResult {
    content = List.copyOf(content);
  }

  public static ToolResult text(String text, Map<String, Object> structured) {
    return new ToolResult(List.of(new Content.Text(text)), false, structured);
  }

  public static ToolResult error(String text) {
    return new ToolResult(List.of(new Content.Text(text)), true, null);
  }

  /** The text blocks joined by newlines. */
  public String text() {
    StringBuilder b = new StringBuilder();
    for (Content c : content) {
      if (c instanceof Content.Text t) {
        if (b.length() > 0) {
          b.append('\n');
        }
        b.append(t.text());
      }
    }
    return b.toString();
  }
}
