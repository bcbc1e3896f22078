"""The players' minds: strategies that use only the rules core and a seat's observation."""
