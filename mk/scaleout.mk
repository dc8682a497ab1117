# mk/scaleout.mk - optional packages for the scale-out recipes' tests
# (tests/tools/scale-out.sh): GNU parallel and a single-node Slurm.
OPTPKGS += slurm-wlm munge parallel
OPTCMDS += slurmctld slurmd munged parallel
