package dev.periscope.api.browser;

import java.util.List;
import java.util.Map;

/**
 * Records read from a region of the page by a fixed traversal ({@code list}, {@code table}, {@code
 * links}, {@code article}): the columns, at most the requested number of rows (each a
 * column-to-text map), how many the region held, and the page and observation they came from.
 */
public record Extraction(
    String kind,
    String url,
    String observationId,
    List<String> columns,
    List<Map<String, String>> rows,
    int total) {
  public Extraction {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }

  public boolean truncated() {
    return rows.size() < total;
  }
}
