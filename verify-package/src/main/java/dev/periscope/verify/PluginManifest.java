package dev.periscope.verify;

import dev.periscope.api.tool.SkillDeclaration;
import java.util.List;
import java.util.Map;

/**
 * A plugin's plugin.yaml, parsed and checked: identity, the host API range it requires, its plugin
 * class and Guice module, the host services it injects, the plugins it depends on (ids, optionally
 * {@code id@range}), its skills, and the JSON Schema of its per-project configuration.
 */
public record PluginManifest(
    String id,
    String version,
    String description,
    String provider,
    String license,
    String requires,
    String pluginClass,
    String module,
    List<String> requiredServices,
    List<String> optionalServices,
    List<String> dependencies,
    List<SkillDeclaration> skills,
    Map<String, Object> configSchema) {}
