package dev.periscope.api.tool;

import java.util.List;

/**
 * A skill as plugin.yaml declares it: a name the user switches on and off, the tools it groups, and
 * short guidance for the model on how to use them.
 */
public record SkillDeclaration(String name, List<String> tools, String guidance) {
  public SkillDeclaration {
    tools = List.copyOf(tools);
  }
}
