#!/bin/sh
# a small real program: where it ran, and when
echo "job $1 ran on $(hostname) in $(pwd) at $(date +%T)"
sleep 2
