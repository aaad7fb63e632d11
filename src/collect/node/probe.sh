#!/bin/sh
# volmnt node probe (being written)
echo "volmnt-probe 0"
