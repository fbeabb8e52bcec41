module github.com/shardid/shardid/tools/bench/sonyflake

go 1.25.0

require github.com/shardid/shardid v0.0.0

require github.com/sony/sonyflake/v2 v2.2.0

replace github.com/shardid/shardid => ../../..
