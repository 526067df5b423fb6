"""Share: memory that travels through the project's remotes. `git enf sync`, the merge of
two clones' memory (each record kind's rule, disagreements, conflict copies), and the
fetched memory that a plain `git fetch` or `git pull` brought, merged before anyone reads
it. Imports the lifecycle and record rooms (a merge runs compression's and instincts'
rules) and the flat base."""
