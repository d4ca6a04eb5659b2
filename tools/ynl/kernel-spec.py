#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The spec as the kernel code generator sees it.

Documentation/netlink/specs/gpupath.yaml says what each command takes inside
its object's nest with a subset attribute set, <command>-request. YNL's C
generator builds a command's policy from its top-level attributes only, and
nests each with its set's full policy. This gives every command with such a
subset a top-level attribute set of its own, with the same names and
numbers, whose object attribute nests the subset: the generated policy of
each command then accepts exactly what it takes, at both levels.

The multicast groups are left out: the generator would make them a static
array of netlink-gen.c, out of reach of kmod/family.c, which registers the
family (its struct is written by hand, for Linux 6.1's ops) with groups
named by the uapi header.

    kernel-spec.py IN.yaml OUT.yaml
"""
import sys

import yaml


def main():
    src, out = sys.argv[1:]
    with open(src) as f:
        text = f.read()
    spec = yaml.safe_load(text)
    sets = {s['name']: s for s in spec['attribute-sets']}
    top = sets[spec['name']]
    values, val = {}, 1
    for attr in top['attributes']:
        val = attr.get('value', val)
        values[attr['name']] = val
        val += 1
    for op in spec['operations']['list']:
        for mode in ('do', 'dump'):
            req = op.get(mode, {}).get('request')
            sub = sets.get(op['name'] + '-request')
            if not req or not sub:
                continue
            obj = sub['subset-of']
            if req['attributes'] != [obj]:
                sys.exit(f"{op['name']}: request must be its object's nest alone")
            name = op['name'] + '-msg'
            if name not in sets:
                sets[name] = {'name': name, 'name-prefix': top['name-prefix'],
                              'enum-name': top['enum-name'],
                              'attr-cnt-name': top['attr-cnt-name'],
                              'attr-max-name': top['attr-max-name'],
                              'attributes': [{'name': obj, 'type': 'nest',
                                              'value': values[obj],
                                              'nested-attributes': sub['name']}]}
                spec['attribute-sets'].append(sets[name])
            op['attribute-set'] = name
    spec.pop('mcast-groups', None)
    with open(out, 'w') as f:
        f.write(text[:text.index('---\n') + 4])
        yaml.safe_dump(spec, f, sort_keys=False, width=90)


if __name__ == '__main__':
    main()
