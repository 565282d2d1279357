package redisstore

// The store's server-side code: a Redis function library (Redis 7.0),
// loaded on every master by Open. It is used for deletes and
// replacements only: a function call costs about 25 µs of the server's
// time against 2 to 4 µs for a plain command (measured on 7.0.15), so
// the ingest path uses none. Functions, unlike scripts loaded with
// SCRIPT LOAD, are replicated, so a promoted replica has them. Every
// function touches keys of one slot only.
//
// The library's name carries a version: a change of any function is a
// new library, loaded beside the old one, so that writers of two
// versions can share a cluster.
const (
	libName = "neardup_v1"

	fnRemoveNum = "neardup_v1_rmnum"   // KEYS bucket; ARGV record length, number offset, number → postings removed
	fnCompact   = "neardup_v1_compact" // KEYS bucket → its length
)

// The ingest library: the two steps of index.Ingest's protocol that
// change a document's state. A state is one field of a hash (see
// stateHash): a status byte ('p' pending, 'o' original, 'd' duplicate)
// then the 5-byte numbers of its markers.
const (
	ingestLibName = "neardup_ingest_v1"

	fnMark   = "neardup_ingest_v1_mark"   // KEYS state hash; ARGV field, marker → the state after
	fnDecide = "neardup_ingest_v1_decide" // KEYS state hash; ARGV field, 'o' or 'd', dead markers (concatenated) → the state after
)

const ingestLibrary = `#!lua name=neardup_ingest_v1

-- Adds a marker to a pending state; a decided state, or none, is
-- returned as it is ('' for none).
redis.register_function('neardup_ingest_v1_mark', function(keys, args)
  local v = redis.call('HGET', keys[1], args[1])
  if not v then return '' end
  if string.sub(v, 1, 1) ~= 'p' then return v end
  local by = args[2]
  for i = 2, #v, 5 do
    if string.sub(v, i, i + 4) == by then return v end
  end
  v = v .. by
  redis.call('HSET', keys[1], args[1], v)
  return v
end)

-- Decides a pending state (none counts as pending with no markers): 'd'
-- always, 'o' only if every marker is among the dead ones; returns the
-- state after.
redis.register_function('neardup_ingest_v1_decide', function(keys, args)
  local v = redis.call('HGET', keys[1], args[1])
  if not v then v = 'p' end
  if string.sub(v, 1, 1) ~= 'p' then return v end
  local markers = string.sub(v, 2)
  if args[2] == 'o' then
    local dead = args[3] or ''
    for i = 1, #markers, 5 do
      local m = string.sub(markers, i, i + 4)
      local found = false
      for j = 1, #dead, 5 do
        if string.sub(dead, j, j + 4) == m then found = true; break end
      end
      if not found then return v end
    end
  end
  v = args[2] .. markers
  redis.call('HSET', keys[1], args[1], v)
  return v
end)
`

const library = `#!lua name=neardup_v1

-- Removes from a bucket of fixed-size records every record whose
-- number (5 bytes at offset off) is num. Returns how many it removed.
redis.register_function('neardup_v1_rmnum', function(keys, args)
  local v = redis.call('GET', keys[1])
  if not v then return 0 end
  local size, off, num = tonumber(args[1]), tonumber(args[2]), args[3]
  local parts, start, removed, i = {}, 1, 0, 1
  while true do
    local j = string.find(v, num, i, true)
    if not j then break end
    local r = j - 1 - off -- the record's start, 0-based
    if r >= 0 and r % size == 0 then
      if r + 1 > start then parts[#parts + 1] = string.sub(v, start, r) end
      start = r + size + 1
      removed = removed + 1
      i = start
    else
      i = j + 1
    end
  end
  if removed == 0 then return 0 end
  if start <= #v then parts[#parts + 1] = string.sub(v, start) end
  if #parts == 0 then
    redis.call('DEL', keys[1])
  else
    redis.call('SET', keys[1], table.concat(parts))
  end
  return removed
end)

-- Rewrites a bucket at its exact size. APPEND grows a string by doubling
-- (below 1 MB), so a bucket holds up to as much free room as data; a
-- string made from a script's value has none.
redis.register_function('neardup_v1_compact', function(keys, args)
  local v = redis.call('GET', keys[1])
  if not v then return 0 end
  redis.call('SET', keys[1], v)
  return #v
end)
`
