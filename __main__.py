"""The Pulumi program: one team's stack of training jobs (see README, "Pulumi").

It reads the stack's config (stacks/Pulumi.<stack>.yaml), loads and validates the specs the
stack holds, declares the team's infrastructure and one TrainingJob per spec, and exports
what a user needs to find them. Each step lives in provider.resources.program.
"""

from provider.resources import program

stack = program.stack_config()
specs = program.load_specs(stack)
infra = program.TeamInfra(stack)
persistent = program.declare_persistent_resources(stack, infra)
jobs = program.declare_jobs(specs, stack, infra, persistent)
program.export(stack, infra, jobs)
